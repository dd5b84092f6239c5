import { PI_NDJSON_V1_ID, PI_NDJSON_V2_ID } from './schemas.js';
import type { SchemaCheck, SchemaRegistry } from '../../schema/schema-registry.js';
import type { NdjsonShape } from './ndjson-shape.js';

/**
 * The command `$def` for each operation. Both schema versions have the same `$defs`; v2 only
 * widens `protocolVersion`, `open` and the resource policy. Validating against the specific
 * `$def` rather than the root `oneOf` gives one readable error instead of ten alternatives.
 */
export const COMMAND_DEFS: Readonly<Record<string, string>> = {
  handshake: 'handshakeCommand',
  open: 'openCommand',
  wake: 'wakeCommand',
  steer: 'queuedMessageCommand',
  followUp: 'queuedMessageCommand',
  status: 'statusCommand',
  abort: 'abortCommand',
  attach: 'attachCommand',
  detach: 'detachCommand',
  close: 'closeCommand',
  drain: 'drainCommand',
};

export const OPERATIONS: readonly string[] = Object.keys(COMMAND_DEFS);

/** Each major version's schema: v1 allows only `1.x` versions, v2 only `2.x`. */
export function schemaIdFor(major: number): string {
  return major === 2 ? PI_NDJSON_V2_ID : PI_NDJSON_V1_ID;
}

/** The check for one message's shape in the schema of `major`; the root for lines of no known shape. */
export function checkFor(registry: SchemaRegistry, shape: NdjsonShape, major: number): SchemaCheck {
  const docId = schemaIdFor(major);
  switch (shape.kind) {
    case 'command':
      // An unknown operation matches no command $def; baseCommand still checks the envelope.
      return registry.def(docId, COMMAND_DEFS[shape.operation] ?? 'baseCommand');
    case 'response':
      return registry.def(docId, 'response');
    case 'event':
      return registry.def(docId, 'event');
    default:
      return registry.check(docId);
  }
}
