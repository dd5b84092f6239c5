import type { CheckerContext, ProtocolChecker, ProtocolModule } from '../protocol.js';
import { classifyNdjson } from './ndjson-shape.js';
import { UnixNdjsonChecker } from './unix-ndjson-checker.js';
import { unixNdjsonSemantic } from './semantic.js';
import { unixNdjsonReplayFacts } from './replay-facts.js';

/** The Pi daemon's owner-only unix socket protocol: UTF-8 NDJSON commands, responses and events. */
export const unixNdjsonProtocol: ProtocolModule<'unix-ndjson'> = {
  ...unixNdjsonReplayFacts,
  title: 'Pi daemon unix-socket NDJSON protocol',

  /** Commands (they have `operation`) come from the client; responses and events from the daemon. */
  guessSender(value: unknown): 'client' | 'server' {
    return classifyNdjson(value).kind === 'command' ? 'client' : 'server';
  },

  semantic: unixNdjsonSemantic,

  createChecker(context: CheckerContext): ProtocolChecker {
    return new UnixNdjsonChecker(context.registry);
  },
};

export { UnixNdjsonChecker } from './unix-ndjson-checker.js';
export { NDJSON_RULES } from './unix-ndjson-rules.js';
export { COMMAND_DEFS, OPERATIONS, schemaIdFor } from './ndjson-schema.js';
export { classifyNdjson, majorVersion, type NdjsonShape } from './ndjson-shape.js';
