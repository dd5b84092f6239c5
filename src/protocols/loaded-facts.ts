import { ProtocolUnknownError } from '../core/errors.js';
import type { ProtocolId } from './catalog.js';
import type { ChannelHint, ProtocolFacts, ReplayHints, WireBinding } from './protocol.js';
import { INDEXED_PROTOCOL_IDS, LOADED_FACTS, PROTOCOL_INDEX } from './protocol-index.js';
import { mostSure } from './most-sure.js';

/**
 * The protocols' facts a process has loaded, for the code a replay runs: a replay loads the facts of
 * its recording's protocols (loadFacts(ids)) and every protocol's only when it must tell a live
 * request's protocol (a miss), where catalog.ts would load them all at its start. Whatever imports
 * catalog.ts has them all (it hands them to protocol-index.ts when it loads), so the functions here
 * answer as catalog.ts's do there. Asking for facts not loaded is a bug in the caller, thrown as such.
 */
const loaded = LOADED_FACTS as Array<ProtocolFacts<ProtocolId> | undefined>;

/** Loads the facts of `ids` (of every protocol when none is given), each once. */
export async function loadFacts(ids: Iterable<ProtocolId> = INDEXED_PROTOCOL_IDS as readonly ProtocolId[]): Promise<void> {
  const wanted = new Set<string>(ids);
  await Promise.all(
    PROTOCOL_INDEX.map(async (entry, i) => {
      if (wanted.has(entry.id) && loaded[i] === undefined) loaded[i] = (await entry.facts()) as ProtocolFacts<ProtocolId>;
    }),
  );
}

/** The loaded facts, in the catalog's order. */
export function loadedFacts(): ProtocolFacts<ProtocolId>[] {
  return loaded.filter((facts) => facts !== undefined);
}

/** The facts of `id`, loaded; ProtocolUnknownError when no protocol has it, as catalog.ts factsOf. */
export function loadedFactsOf(id: string): ProtocolFacts<ProtocolId> {
  const at = INDEXED_PROTOCOL_IDS.indexOf(id);
  if (at < 0) throw new ProtocolUnknownError(`unknown protocol '${id}'; expected one of ${INDEXED_PROTOCOL_IDS.join(', ')}`);
  const facts = loaded[at];
  if (facts === undefined) throw new Error(`the facts of protocol '${id}' are used before they were loaded (loadFacts)`);
  return facts;
}

/** The replay hints of a protocol, if it has any (loaded). */
export function loadedReplayHintsOf(id: ProtocolId): ReplayHints | undefined {
  return loadedFactsOf(id).replay;
}

/** The protocol most sure that a channel is its own, or undefined: every protocol's facts must be loaded (loadFacts()). */
export function classifyWithLoadedFacts(hint: ChannelHint): ProtocolFacts<ProtocolId> | undefined {
  const missing = loaded.findIndex((facts) => facts === undefined);
  if (missing >= 0) throw new Error(`a channel is classified before every protocol's facts were loaded (loadFacts()): '${INDEXED_PROTOCOL_IDS[missing]}' is not`);
  return mostSure(loaded as ProtocolFacts<ProtocolId>[], (p) => p.classify(hint));
}

/** The channels no wire binding uses: WebSocket opcodes, SSE comments, stdio's streams, and none. */
export const UNBOUND_CHANNELS: ReadonlySet<string | null> = new Set([null, 'text', 'binary', 'ping', 'pong', 'close', 'comment', 'stdin', 'stdout', 'stderr']);

/**
 * The wire encoding whose frames are stored under `channel` (`proto`), if a protocol declares one, as
 * catalog.ts bindingOfChannel: any other channel than UNBOUND_CHANNELS needs every protocol's facts
 * loaded (a replay loads them for a recording that holds one, replay-facts-needed.ts).
 */
export function bindingOfLoadedChannel(channel: string | null | undefined): WireBinding | undefined {
  if (channel === undefined || UNBOUND_CHANNELS.has(channel)) return undefined;
  const missing = loaded.findIndex((facts) => facts === undefined);
  if (missing >= 0) throw new Error(`the binding of channel '${channel}' is looked up before every protocol's facts were loaded (loadFacts()): '${INDEXED_PROTOCOL_IDS[missing]}' is not`);
  for (const facts of loaded) if (facts?.binding !== undefined && facts.binding.channel === channel) return facts.binding;
  return undefined;
}
