import { PROTOCOL_FAMILIES, PROTOCOL_IDS, protocolSchemas, STREAM_END_RULES, WIRE_BINDINGS, type ProtocolId } from './catalog.js';
import type { WireBinding } from './protocol.js';
import type { SchemaSpec } from '../schema/schema-sources.js';

/**
 * The catalog as plain data: the names the CLI checks its options by, the rules a finding's place is
 * told by, the media types the capture thread tells a binary body by, and the schemas the protocols
 * declare, which the recording worker opens its file with before it loads their facts. A `record` start's main
 * thread needed no more of the catalog than these, yet loaded every protocol's facts for them (~15 ms
 * of its CPU on Node 20). In the CLI's bundle this module is its value, computed at build time
 * (scripts/bundle-cli.mjs) from this very module as compiled, and imports nothing; unbundled, it
 * reads the catalog.
 */
export interface CatalogSummary {
  /** PROTOCOL_IDS. */
  readonly ids: readonly ProtocolId[];
  /** PROTOCOL_FAMILIES. */
  readonly families: readonly string[];
  /** STREAM_END_RULES. */
  readonly streamEndRules: readonly string[];
  /** WIRE_BINDINGS, by what announces them. */
  readonly bindings: ReadonlyArray<Pick<WireBinding, 'channel' | 'mediaType'>>;
  /** protocolSchemas(). */
  readonly schemas: readonly SchemaSpec[];
}

export const CATALOG_SUMMARY: CatalogSummary = {
  ids: PROTOCOL_IDS,
  families: PROTOCOL_FAMILIES,
  streamEndRules: [...STREAM_END_RULES],
  bindings: WIRE_BINDINGS.map(({ channel, mediaType }) => ({ channel, mediaType })),
  schemas: protocolSchemas(),
};
