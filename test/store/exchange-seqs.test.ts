import { describe, expect, it } from 'vitest';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { RecordingWriter, heldExchangeSeqs } from '../../src/store/recording-writer.js';
import type { Verdict } from '../../src/core/verdict.js';
import { scratch } from '../support/temp-dir.js';
import { useCleanups } from '../support/cleanups.js';
import { meta } from './store-fixtures.js';

useCleanups();

const VALID: Verdict = { status: 'valid', findings: [] };
const KEY = 'sk-proj-Ab3dEfGhIjKlMnOpQrStUvWxYz0123456789_-abcdEFGH';

function body(exchangeId: number, n: number) {
  return { exchangeId, sender: 'server' as const, carrier: 'body' as const, tOffsetMs: n, raw: Buffer.from(`m${n}`), verdict: VALID };
}

/** Each exchange's seqs in the file, in order. */
function seqsByExchange(reader: RecordingReader): Map<number, number[]> {
  const byExchange = new Map<number, number[]>();
  for (const exchange of reader.exchanges()) byExchange.set(exchange.id, reader.messages(exchange.id).map((m) => m.seq));
  return byExchange;
}

const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe("RecordingWriter: what it holds of each exchange's seqs", () => {
  it('stays bounded over a long recording, with a stream open throughout and 32 exchanges going at once, and every seq is as before', () => {
    const file = scratch('agent-proxy-exchange-seqs-').file('long.db');
    const writer = RecordingWriter.open(file, meta(), { maxBatch: 500 });
    const stream = writer.beginExchange({ transport: 'sse', tOffsetMs: 0 });
    const going: number[] = [];
    let streamMessages = 0;
    let most = 0;
    const EXCHANGES = 20_000;
    for (let i = 0; i < EXCHANGES; i++) {
      going.push(writer.beginExchange({ transport: 'http', method: 'GET', path: '/x', tOffsetMs: i }));
      if (going.length > 32) {
        // Not the oldest first: the one that ends is the 7th oldest, so ends come out of order.
        const [id] = going.splice(Math.min(6, going.length - 1), 1);
        writer.addMessage(body(id, i));
        writer.addMessage(body(id, i));
        writer.endExchange(id, { outcome: 'complete', tOffsetMs: i });
      }
      if (i % 10 === 0) {
        writer.addMessage(body(stream, i));
        streamMessages++;
      }
      most = Math.max(most, heldExchangeSeqs(writer));
    }
    for (const id of going) writer.endExchange(id, { outcome: 'complete', tOffsetMs: EXCHANGES });
    writer.endExchange(stream, { outcome: 'complete', tOffsetMs: EXCHANGES });
    // The 20,001 exchanges would be 20,001 entries each; at most 2,048 ended ones and those going are held.
    expect(most).toBeLessThanOrEqual(2048 + 34);
    expect(most).toBeGreaterThan(1024);
    writer.close();

    const reader = RecordingReader.open(file);
    try {
      const seqs = seqsByExchange(reader);
      expect(seqs.size).toBe(EXCHANGES + 1);
      expect(seqs.get(stream)).toEqual(oneTo(streamMessages));
      const ended = [...seqs].filter(([id]) => id !== stream);
      expect(ended.filter(([, list]) => list.length === 2 && list[0] === 1 && list[1] === 2).length).toBe(EXCHANGES - 32);
      expect(ended.filter(([, list]) => list.length === 0).length).toBe(32);
    } finally {
      reader.close();
    }
  });

  it('an ended exchange, long since dropped from memory, is still its own: a late message gets its next seq, a credential seen late goes on its last message', () => {
    const file = scratch('agent-proxy-exchange-seqs-').file('late.db');
    const writer = RecordingWriter.open(file, meta(), {});
    const first = writer.beginExchange({ transport: 'http', method: 'POST', path: '/a', tOffsetMs: 0 });
    writer.addMessage(body(first, 1));
    writer.addMessage(body(first, 2));
    writer.endExchange(first, { outcome: 'complete', tOffsetMs: 2 });
    const empty = writer.beginExchange({ transport: 'http', method: 'GET', path: '/b', tOffsetMs: 3 });
    writer.endExchange(empty, { outcome: 'complete', tOffsetMs: 3 });
    for (let i = 0; i < 3000; i++) writer.endExchange(writer.beginExchange({ transport: 'http', method: 'GET', path: '/c', tOffsetMs: 4 }), { outcome: 'complete', tOffsetMs: 4 });
    expect(heldExchangeSeqs(writer)).toBeLessThan(2048);

    const late = writer.addMessage(body(first, 5));
    const again = writer.addMessage(body(first, 6));
    writer.addMessage(body(empty, 7));
    writer.updateExchange(first, { responseHeaders: { 'x-echo': KEY } });
    writer.endExchange(first, { outcome: 'complete', tOffsetMs: 8 });
    expect(() => writer.addMessage(body(2 + 3000 + 1, 9))).toThrow(/no exchange 3003 /);
    writer.close();

    const reader = RecordingReader.open(file);
    try {
      const seqs = seqsByExchange(reader);
      expect(seqs.get(first)).toEqual([1, 2, 3, 4]);
      expect(seqs.get(empty)).toEqual([1]);
      const messages = reader.messages(first);
      expect(messages.map((m) => m.id).slice(2)).toEqual([late, again]);
      expect(messages[3].verdict.findings.map((f) => f.message)).toEqual([
        "an OpenAI API key (sk-…) is in response header 'x-echo'; it was forwarded as sent and stored as <redacted>",
      ]);
      expect(messages.slice(0, 3).every((m) => m.verdict.findings.length === 0)).toBe(true);
    } finally {
      reader.close();
    }
  });
});
