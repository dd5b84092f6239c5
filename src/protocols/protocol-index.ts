import type { ProtocolFacts, SessionHints } from './protocol.js';
import { MCP_HTTP_SESSIONS } from './mcp/replay-sessions.js';

/**
 * The catalog's protocols without their facts: each one's id, in the catalog's order, the family, the
 * secret fields and the HTTP sessions its facts declare (what option parsing, redaction and a replay's
 * sessions need of every protocol),
 * and how to load its facts alone. A replay loads the facts of its recording's protocols only
 * (loaded-facts.ts), where catalog.ts, which imports every protocol's facts, cost ~15 ms of its
 * start. catalog.ts checks, when it loads, that this index says what its facts say, in its order.
 */
export const PROTOCOL_INDEX: ReadonlyArray<{ id: string; family?: string; secretFields?: readonly string[]; sessions?: SessionHints; facts: () => Promise<ProtocolFacts> }> = [
  { id: 'agui', facts: async () => (await import('./agui/replay-facts.js')).aguiReplayFacts },
  { id: 'pi-rest', family: 'pi-daemon', facts: async () => (await import('./pi-rest/replay-facts.js')).piRestReplayFacts },
  { id: 'pi-daemon-rpc', family: 'pi-daemon', facts: async () => (await import('./pi-daemon-rpc/replay-facts.js')).piDaemonRpcReplayFacts },
  { id: 'pi-rpc', facts: async () => (await import('./pi-rpc/replay-facts.js')).piRpcReplayFacts },
  { id: 'acp', secretFields: ['/params/mcpServers/*/env/*/value', '/params/mcpServers/*/headers/*/value'], facts: async () => (await import('./acp/replay-facts.js')).acpReplayFacts },
  { id: 'mcp', sessions: MCP_HTTP_SESSIONS, facts: async () => (await import('./mcp/replay-facts.js')).mcpReplayFacts },
  { id: 'unix-ndjson', facts: async () => (await import('./unix-ndjson/replay-facts.js')).unixNdjsonReplayFacts },
  { id: 'json-rpc', facts: async () => (await import('./json-rpc/replay-facts.js')).jsonRpcReplayFacts },
  { id: 'openai', facts: async () => (await import('./openai/replay-facts.js')).openAiReplayFacts },
  { id: 'anthropic', facts: async () => (await import('./anthropic/replay-facts.js')).anthropicReplayFacts },
];

/** Every protocol's id, in the catalog's order (catalog.ts gives them the type ProtocolId). */
export const INDEXED_PROTOCOL_IDS: readonly string[] = PROTOCOL_INDEX.map((entry) => entry.id);

/** The families the protocols declare (ProtocolFacts.family), each once, in the catalog's order. */
export const INDEXED_PROTOCOL_FAMILIES: readonly string[] = [...new Set(PROTOCOL_INDEX.flatMap((entry) => (entry.family === undefined ? [] : [entry.family])))];

/** The fields the protocols declare secret (ProtocolFacts.fields), each once. */
export const INDEXED_SECRET_FIELDS: readonly string[] = [...new Set(PROTOCOL_INDEX.flatMap((entry) => entry.secretFields ?? []))];

/**
 * Each protocol's facts once loaded, by its place in the index (loaded-facts.ts reads and fills it):
 * catalog.ts, which imports them all, hands them over when it loads.
 */
export const LOADED_FACTS: Array<ProtocolFacts | undefined> = PROTOCOL_INDEX.map(() => undefined);

/** Every protocol's facts at once, in the catalog's order: catalog.ts, when it loads. */
export function provideAllFacts(all: readonly ProtocolFacts[]): void {
  all.forEach((facts, i) => (LOADED_FACTS[i] = facts));
}
