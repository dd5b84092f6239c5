import { classifyChannel, protocolById, sniffMessage } from '../protocols/catalog.js';
import type { ChannelHint, ProtocolId, ProtocolModule } from '../protocols/protocol.js';

export { checkProtocolOption, parseProtocolOption } from './protocol-option.js';

/** How many of a stream's first messages vote on its protocol when its channel does not say. */
export const PROTOCOL_SAMPLE_SIZE = 20;

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

/** The protocol a stream's messages are judged by, for `record` and `validate` alike; undefined: none claims it. */
export function chooseProtocol(evidence: ProtocolEvidence): ProtocolModule | undefined {
  if (evidence.forced) return protocolById(evidence.forced);
  if (evidence.recorded !== undefined) return evidence.recorded === null ? undefined : protocolById(evidence.recorded);
  const { hint, sample } = evidence;
  const byChannel = hint ? classifyChannel(hint) : undefined;
  if (byChannel && (sample === undefined || hint!.transport !== 'sse')) return byChannel;
  return (sample && mostSniffed(sample)) ?? byChannel;
}

function mostSniffed(sample: readonly unknown[]): ProtocolModule | undefined {
  const votes = new Map<ProtocolModule, number>();
  for (let i = 0; i < sample.length && i < PROTOCOL_SAMPLE_SIZE; i++) {
    const module = sniffMessage(sample[i]);
    if (module) votes.set(module, (votes.get(module) ?? 0) + 1);
  }
  let best: ProtocolModule | undefined;
  for (const [module, count] of votes) if (!best || count > votes.get(best)!) best = module;
  return best;
}
