import type { ChannelHint, ProtocolFacts } from '../protocols/protocol.js';
import { classifyForReplay, factsOf, mostSure, REPLAY_FACTS, type ProtocolId } from '../protocols/catalog.js';

/** How many of a stream's first messages vote on its protocol when its channel does not say. */
export const PROTOCOL_SAMPLE_SIZE = 20;

/** The evidence of a protocol named with `--protocol` (or the API's `protocol` option). */
export const FORCED_EVIDENCE = '--protocol flag';

/** What is known of a stream when its protocol is chosen. */
export interface ProtocolEvidence {
  /** `--protocol`: wins over everything. */
  forced?: ProtocolId;
  /**
   * What `record` chose, read back from a recording: null when no protocol claimed the exchange. It wins
   * over the channel and the messages, so `validate rec.db` judges each exchange as record did.
   */
  recorded?: ProtocolId | null;
  /** What the channel says (transport, route, content type, subprotocol, request body). */
  hint?: ChannelHint;
  /**
   * Parsed messages of the stream, when they are at hand before judging (a file, a stdio line held
   * back): the first ones vote, one odd message does not decide. An SSE channel's messages outvote
   * its channel, whose route and content type say little of what the events are.
   */
  sample?: readonly unknown[];
}

/** The protocol a stream is judged by, told from its facts alone, and the evidence that chose it. */
export interface ProtocolDetection {
  facts: ProtocolFacts<ProtocolId>;
  evidence: string;
}

/**
 * The protocol a stream's messages are judged by, from the catalog's facts (each protocol's
 * classify, sniff and evidence texts): no protocol's module is loaded to tell it, so a command
 * loads the checker of the protocol its input has and no other. Undefined: none claims it.
 */
export function detectProtocol(evidence: ProtocolEvidence): ProtocolDetection | undefined {
  if (evidence.forced) return { facts: factsOf(evidence.forced), evidence: FORCED_EVIDENCE };
  if (evidence.recorded !== undefined) {
    return evidence.recorded === null ? undefined : { facts: factsOf(evidence.recorded), evidence: 'as recorded' };
  }
  const { hint, sample } = evidence;
  if (hint?.sniffed) return { facts: factsOf(hint.sniffed.protocol), evidence: hint.sniffed.evidence };
  const byChannel = hint ? classifyForReplay(hint) : undefined;
  const channelChoice = byChannel && { facts: byChannel, evidence: byChannel.channelEvidence(hint!) };
  if (channelChoice && (sample === undefined || hint!.transport !== 'sse')) return channelChoice;
  return (sample && mostSniffed(sample, hint?.transport)) ?? channelChoice;
}

/**
 * The protocol most of the first messages are sniffed as, among those that run over `transport`;
 * a dialect (ACP) over its base (JSON-RPC) when any message is the dialect's own.
 */
function mostSniffed(sample: readonly unknown[], transport: ChannelHint['transport'] | undefined): ProtocolDetection | undefined {
  const candidates = transport === undefined || transport === 'file' ? REPLAY_FACTS : REPLAY_FACTS.filter((p) => p.transports.includes(transport));
  const votes = new Map<ProtocolFacts<ProtocolId>, { count: number; first: unknown }>();
  const sampled = Math.min(sample.length, PROTOCOL_SAMPLE_SIZE);
  for (let i = 0; i < sampled; i++) {
    const facts = mostSure(candidates, (p) => p.sniff(sample[i]));
    if (!facts) continue;
    const vote = votes.get(facts);
    if (vote) vote.count++;
    else votes.set(facts, { count: 1, first: sample[i] });
  }
  let best: ProtocolFacts<ProtocolId> | undefined;
  for (const [facts, vote] of votes) if (!best || vote.count > votes.get(best)!.count) best = facts;
  if (!best) return undefined;
  const dialect = [...votes.keys()].find((f) => f.dialectOf === best!.id);
  const chosen = dialect ?? best;
  const { count, first } = votes.get(chosen)!;
  const said = chosen.messageEvidence(first);
  return { facts: chosen, evidence: sampled > 1 ? `${said} (${count} of ${sampled} messages)` : said };
}
