import type { ChannelHint, ProtocolId, ReplayFacts, ReplayHints } from './protocol.js';
import { aguiReplayFacts } from './agui/replay-facts.js';
import { piRestReplayFacts } from './pi-rest/replay-facts.js';
import { piDaemonRpcReplayFacts } from './pi-daemon-rpc/replay-facts.js';
import { piRpcReplayFacts } from './pi-rpc/replay-facts.js';
import { acpReplayFacts } from './acp/replay-facts.js';
import { unixNdjsonReplayFacts } from './unix-ndjson/replay-facts.js';
import { jsonRpcReplayFacts } from './json-rpc/replay-facts.js';

/**
 * What a replay needs of every protocol, in the catalog's order (ties are broken alike), without the
 * checkers, their schemas and their libraries: a replay judges nothing, and starts without them.
 */
export const REPLAY_FACTS: readonly ReplayFacts[] = [
  aguiReplayFacts,
  piRestReplayFacts,
  piDaemonRpcReplayFacts,
  piRpcReplayFacts,
  acpReplayFacts,
  unixNdjsonReplayFacts,
  jsonRpcReplayFacts,
];

/** The replay hints of a protocol, if it has any. */
export function replayHintsOf(id: ProtocolId): ReplayHints | undefined {
  const found = REPLAY_FACTS.find((p) => p.id === id);
  if (!found) throw new Error(`unknown protocol '${id}'`);
  return found.replay;
}

/** The protocol most sure that a channel is its own, or undefined when none claims it (as catalog.ts classifyChannel). */
export function classifyForReplay(hint: ChannelHint): ReplayFacts | undefined {
  return mostSure(REPLAY_FACTS.map((p) => [p, p.classify(hint)] as const));
}

/** The first of the highest scores above 0, or undefined. */
export function mostSure<T>(scored: ReadonlyArray<readonly [T, number]>): T | undefined {
  let top: T | undefined;
  let topScore = 0;
  for (const [candidate, score] of scored) {
    if (score > topScore) {
      top = candidate;
      topScore = score;
    }
  }
  return top;
}
