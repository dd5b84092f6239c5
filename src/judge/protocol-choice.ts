import { classifyChannel, PROTOCOLS, protocolById } from '../protocols/modules.js';
import type { ChannelHint, ProtocolModule } from '../protocols/protocol.js';
import { mostSure, type ProtocolId } from '../protocols/catalog.js';

export { checkProtocolOption, parseProtocolOption } from './protocol-option.js';

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

/** The protocol a stream is judged by, and the evidence that chose it (`route GET /v1/session/{sessionRef}`), for `show`. */
export interface ProtocolChoice {
  module: ProtocolModule<ProtocolId>;
  evidence: string;
}

/**
 * The protocol a stream's messages are judged by, for `record` and `validate` alike; undefined: none
 * claims it, and its messages are unchecked (never judged by the rules of a protocol that merely
 * shares a transport, a path prefix or a message envelope with it).
 */
export function chooseProtocol(evidence: ProtocolEvidence): ProtocolChoice | undefined {
  if (evidence.forced) return { module: protocolById(evidence.forced), evidence: FORCED_EVIDENCE };
  if (evidence.recorded !== undefined) {
    return evidence.recorded === null ? undefined : { module: protocolById(evidence.recorded), evidence: 'as recorded' };
  }
  const { hint, sample } = evidence;
  if (hint?.sniffed) return { module: protocolById(hint.sniffed.protocol), evidence: hint.sniffed.evidence };
  const byChannel = hint ? classifyChannel(hint) : undefined;
  const channelChoice = byChannel && { module: byChannel, evidence: byChannel.channelEvidence(hint!) };
  if (channelChoice && (sample === undefined || hint!.transport !== 'sse')) return channelChoice;
  return (sample && mostSniffed(sample, hint?.transport)) ?? channelChoice;
}

/**
 * The protocol most of the first messages are sniffed as, among those that run over `transport`;
 * a dialect (ACP) over its base (JSON-RPC) when any message is the dialect's own.
 */
function mostSniffed(sample: readonly unknown[], transport: ChannelHint['transport'] | undefined): ProtocolChoice | undefined {
  const candidates = transport === undefined || transport === 'file' ? PROTOCOLS : PROTOCOLS.filter((p) => p.transports.includes(transport));
  const votes = new Map<ProtocolModule<ProtocolId>, { count: number; first: unknown }>();
  const sampled = Math.min(sample.length, PROTOCOL_SAMPLE_SIZE);
  for (let i = 0; i < sampled; i++) {
    const module = mostSure(candidates, (p) => p.sniff(sample[i]));
    if (!module) continue;
    const vote = votes.get(module);
    if (vote) vote.count++;
    else votes.set(module, { count: 1, first: sample[i] });
  }
  let best: ProtocolModule<ProtocolId> | undefined;
  for (const [module, vote] of votes) if (!best || vote.count > votes.get(best)!.count) best = module;
  if (!best) return undefined;
  const dialect = [...votes.keys()].find((m) => m.dialectOf === best!.id);
  const chosen = dialect ?? best;
  const { count, first } = votes.get(chosen)!;
  const evidence = chosen.messageEvidence(first);
  return { module: chosen, evidence: sampled > 1 ? `${evidence} (${count} of ${sampled} messages)` : evidence };
}
