import type { SessionPair, ViewMessage } from './inspector-views.js';
import { isJsonObject } from '../core/json.js';

/** The id as JSON text for display, or null when there is none. */
export const idText = (id: unknown): string | null => (id === undefined || id === null ? null : JSON.stringify(id));

/**
 * Requests waiting for their responses, by a correlation key (first in, first answered when a key
 * repeats), and every pair made so far. Shared by the Pi and ACP session views.
 */
export class PairBook {
  private readonly all: SessionPair[] = [];
  private readonly waiting = new Map<string, SessionPair[]>();

  /** A new pair with nothing seen yet, listed in the order pairs are made. */
  private open(label: string, id: unknown, from: SessionPair['from']): SessionPair {
    const pair: SessionPair = { label, id: idText(id), from, requestSeq: null, requestAtMs: null, responseSeq: null, responseAtMs: null, latencyMs: null, ok: null, error: null };
    this.all.push(pair);
    return pair;
  }

  request(key: string, m: ViewMessage, label: string, id: unknown): SessionPair {
    const pair = this.open(label, id, m.sender);
    pair.requestSeq = m.seq;
    pair.requestAtMs = m.tOffsetMs;
    const queue = this.waiting.get(key);
    if (queue === undefined) this.waiting.set(key, [pair]);
    else queue.push(pair);
    return pair;
  }

  /** Answers the oldest request waiting under `key`; a response nothing waits for becomes a pair of its own. */
  answer(key: string, m: ViewMessage, outcome: { ok: boolean; error: string | null; label: string; id: unknown }): SessionPair {
    const queue = this.waiting.get(key);
    let pair = queue?.shift();
    if (queue !== undefined && queue.length === 0) this.waiting.delete(key);
    if (pair === undefined) {
      pair = this.open(outcome.label, outcome.id, m.sender === 'client' ? 'server' : 'client');
    }
    pair.responseSeq = m.seq;
    pair.responseAtMs = m.tOffsetMs;
    pair.latencyMs = pair.requestAtMs === null ? null : Math.max(0, m.tOffsetMs - pair.requestAtMs);
    pair.ok = outcome.ok;
    pair.error = outcome.error;
    return pair;
  }

  /** Every pair in wire order (by the request's seq, or the response's for one nothing asked for). */
  pairs(): SessionPair[] {
    return [...this.all].sort((a, b) => (a.requestSeq ?? a.responseSeq ?? 0) - (b.requestSeq ?? b.responseSeq ?? 0));
  }

  get unanswered(): number {
    let n = 0;
    for (const queue of this.waiting.values()) n += queue.length;
    return n;
  }
}

/** The message is a JSON object worth looking at (not a close frame, not a raw line). */
export function objectOf(m: ViewMessage): Record<string, unknown> | undefined {
  if (m.channel === 'close') return undefined;
  return isJsonObject(m.json) ? m.json : undefined;
}

export const errorText = (v: unknown): string | null => (v === undefined || v === null ? null : typeof v === 'string' ? v : JSON.stringify(v));
