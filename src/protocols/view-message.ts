import type { ViewMessage } from './inspector-views.js';

/** A message as the store hands it out, judged (its MessageRow, by shape: the protocols do not import the store). */
export type StoredViewSource = Omit<ViewMessage, 'status' | 'exchangeId'> & { verdict: { status: ViewMessage['status'] } };

/** A stored message as a protocol's views read it (ProtocolViews.answer, tab and stateAt): its verdict's status, its parsed JSON. */
export function viewMessage(m: StoredViewSource): ViewMessage {
  return { seq: m.seq, sender: m.sender, carrier: m.carrier, channel: m.channel, tOffsetMs: m.tOffsetMs, status: m.verdict.status, json: m.json };
}
