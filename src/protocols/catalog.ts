import { ProtocolUnknownError } from '../core/errors.js';
import { declareProtocolSchemas, type SchemaSpec } from '../schema/schema-sources.js';
import type { ChannelHint, ChannelTransport, ProtocolFacts, ProtocolModule, ReplayHints, WireBinding } from './protocol.js';
import { labelledFieldsOf, secretFieldsOf } from './field-roles.js';
import { bindingOfMediaType } from './binding-media-type.js';
import { aguiReplayFacts } from './agui/replay-facts.js';
import { piRestReplayFacts } from './pi-rest/replay-facts.js';
import { piDaemonRpcReplayFacts } from './pi-daemon-rpc/replay-facts.js';
import { piRpcReplayFacts } from './pi-rpc/replay-facts.js';
import { acpReplayFacts } from './acp/replay-facts.js';
import { mcpReplayFacts } from './mcp/replay-facts.js';
import { unixNdjsonReplayFacts } from './unix-ndjson/replay-facts.js';
import { jsonRpcReplayFacts } from './json-rpc/replay-facts.js';
import { openAiReplayFacts } from './openai/replay-facts.js';
import { anthropicReplayFacts } from './anthropic/replay-facts.js';

/**
 * Every protocol the proxy understands, one line each, in the order ties are broken: the one list of
 * them. Each line is the protocol's facts (what every tool needs without its checker), so that a
 * replay, which judges nothing, starts without the checkers, their schemas and their libraries, and
 * how to load its full module (the recording worker loads them one at a time); modules.ts gives the
 * full module of each id listed here.
 */
const ENTRIES = [
  { facts: aguiReplayFacts, load: () => import('./agui/index.js') },
  { facts: piRestReplayFacts, load: () => import('./pi-rest/index.js') },
  { facts: piDaemonRpcReplayFacts, load: () => import('./pi-daemon-rpc/index.js') },
  { facts: piRpcReplayFacts, load: () => import('./pi-rpc/index.js') },
  { facts: acpReplayFacts, load: () => import('./acp/index.js') },
  { facts: mcpReplayFacts, load: () => import('./mcp/index.js') },
  { facts: unixNdjsonReplayFacts, load: () => import('./unix-ndjson/index.js') },
  { facts: jsonRpcReplayFacts, load: () => import('./json-rpc/index.js') },
  { facts: openAiReplayFacts, load: () => import('./openai/index.js') },
  { facts: anthropicReplayFacts, load: () => import('./anthropic/index.js') },
] as const;

type CatalogFacts = (typeof ENTRIES)[number]['facts'];

/** The id of a protocol of the catalog. */
export type ProtocolId = CatalogFacts['id'];

/** The facts of every protocol, in the catalog's order. */
export const CATALOG: readonly CatalogFacts[] = ENTRIES.map((entry) => entry.facts);

/** Loads each protocol's full module (its checker, its libraries), one step each, in the catalog's order. */
export const MODULE_LOADS: ReadonlyArray<() => Promise<unknown>> = ENTRIES.map((entry) => entry.load);

/**
 * The full module of one protocol (its checker, its libraries), loaded on first need: a command that
 * judges a file of one protocol loads that one only (modules.ts has them all). Its index.ts exports
 * it under a name of its own (`aguiProtocol`): the export that is a module of this id.
 */
export async function loadModule(id: ProtocolId): Promise<ProtocolModule<ProtocolId>> {
  const exports = (await ENTRIES[PROTOCOL_IDS.indexOf(factsOf(id).id)].load()) as Record<string, unknown>;
  const module = Object.values(exports).find((value): value is ProtocolModule<ProtocolId> => isModuleOf(value, id));
  if (module === undefined) throw new ProtocolUnknownError(`the module of protocol '${id}' exports no ProtocolModule of that id`);
  return module;
}

function isModuleOf(value: unknown, id: string): boolean {
  return typeof value === 'object' && value !== null && (value as { id?: unknown }).id === id && typeof (value as { createChecker?: unknown }).createChecker === 'function';
}

/** The id of a protocol of the catalog that runs over `T` (its `transports`). */
export type ProtocolIdOver<T extends ChannelTransport> = CatalogFacts extends infer Facts ? (Facts extends ProtocolFacts<infer Id, infer Over> ? (T extends Over ? Id : never) : never) : never;

/** Every protocol's id, in the catalog's order. */
export const PROTOCOL_IDS: readonly ProtocolId[] = CATALOG.map((facts) => facts.id);

/** The facts of every protocol, in the catalog's order. */
export const REPLAY_FACTS: readonly ProtocolFacts<ProtocolId>[] = CATALOG;

// Every schema registry loads what the protocols are judged by, which only they know.
declareProtocolSchemas(protocolSchemas);

/** The schemas the protocols declare (ProtocolFacts.schemas), in the catalog's order. */
export function protocolSchemas(): SchemaSpec[] {
  return REPLAY_FACTS.flatMap((facts) => facts.schemas ?? []);
}

/** The fields the protocols declare secret (ProtocolFacts.fields), each once. */
export const PROTOCOL_SECRET_FIELDS: readonly string[] = secretFieldsOf(REPLAY_FACTS);

let protocolIdFieldList: readonly string[] | undefined;
/**
 * The fields the protocols declare ids or write-only (ProtocolFacts.fields), which diff labels, each
 * once: made on the first call, not at import, since every command loads the catalog and only diff asks.
 */
export function protocolIdFields(): readonly string[] {
  return (protocolIdFieldList ??= labelledFieldsOf(REPLAY_FACTS));
}

/** The rules the protocols' checkers report about a stream as a whole (ProtocolFacts.streamEndRules). */
export const STREAM_END_RULES: ReadonlySet<string> = new Set(REPLAY_FACTS.flatMap((facts) => facts.streamEndRules ?? []));

/** The protocols whose modules assemble model answers (ProtocolFacts.answers). */
export const ANSWERING_PROTOCOLS: ReadonlySet<string> = new Set(REPLAY_FACTS.filter((facts) => facts.answers === true).map((facts) => facts.id));

/** The families the protocols declare (ProtocolFacts.family), each once, in the catalog's order. */
export const PROTOCOL_FAMILIES: readonly string[] = [...new Set(REPLAY_FACTS.flatMap((facts) => (facts.family === undefined ? [] : [facts.family])))];

/** The binary wire encodings the protocols declare (ProtocolFacts.binding). */
export const WIRE_BINDINGS: readonly WireBinding[] = REPLAY_FACTS.flatMap((facts) => (facts.binding === undefined ? [] : [facts.binding]));

/** The wire encoding whose frames are stored under `channel` (`proto`), if a protocol declares one. */
export function bindingOfChannel(channel: string | null | undefined): WireBinding | undefined {
  return WIRE_BINDINGS.find((binding) => binding.channel === channel);
}

/** The wire encoding a response Content-Type announces (binding-media-type.ts). */
export function bindingOfContentType(contentType: string | undefined): WireBinding | undefined {
  return bindingOfMediaType(WIRE_BINDINGS, contentType);
}

/** The facts of `id`; ProtocolUnknownError when none has it (an id that bypassed the type: a JS caller, a stored row). */
export function factsOf(id: string): ProtocolFacts<ProtocolId> {
  const found = REPLAY_FACTS.find((p) => p.id === id);
  if (!found) throw new ProtocolUnknownError(`unknown protocol '${id}'; expected one of ${PROTOCOL_IDS.join(', ')}`);
  return found;
}

/** The ids of the protocols that run over `transport`, in the catalog's order. */
export function protocolsOver<T extends ChannelTransport>(transport: T): readonly ProtocolIdOver<T>[] {
  return REPLAY_FACTS.filter((facts) => (facts.transports as readonly ChannelTransport[]).includes(transport)).map((facts) => facts.id as ProtocolIdOver<T>);
}

/** The replay hints of a protocol, if it has any. */
export function replayHintsOf(id: ProtocolId): ReplayHints | undefined {
  return factsOf(id).replay;
}

/** The protocol most sure that a channel is its own, or undefined when none claims it (as modules.ts classifyChannel). */
export function classifyForReplay(hint: ChannelHint): ProtocolFacts<ProtocolId> | undefined {
  return mostSure(REPLAY_FACTS, (p) => p.classify(hint));
}

/**
 * The first candidate of the highest score above 0, or undefined. Scored in a loop, not as pairs:
 * every exchange the recorder opens is classified twice or more, ten protocols each time.
 */
export function mostSure<T>(candidates: readonly T[], score: (candidate: T) => number): T | undefined {
  let top: T | undefined;
  let topScore = 0;
  for (let i = 0; i < candidates.length; i++) {
    const candidate = candidates[i];
    const sure = score(candidate);
    if (sure > topScore) {
      top = candidate;
      topScore = sure;
    }
  }
  return top;
}
