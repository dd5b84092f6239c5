/**
 * `export`'s reader reads a plain message's sender, carrier, channel, status, schema ref id and
 * `json_at` as one number (store/plain-message-kind.ts): every message must come out as the reader of
 * whole rows gives it, those the number cannot hold (a word it does not list, a text starting past
 * 4,095, a ref id past 1,022) read the long way.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { RecordingReader } from '../../src/store/recording-reader.js';
import type { MessageTextRow } from '../../src/store/store-types.js';
import { verdictsWrittenByHand } from '../support/agreement-pending.js';
import { scratch } from '../support/temp-dir.js';
import { writeRawMessagesDb } from '../support/raw-messages-db.js';

const CHANNELS = [null, 'text', 'binary', 'close', 'ping', 'pong', 'comment', 'proto', 'stdin', 'stdout', 'stderr', '', 'custom', 'text,x'];
const CARRIERS = ['body', 'event', 'frame', 'line', 'frames'];
const STATUSES = ['valid', 'invalid', 'unchecked'];

describe("a plain message's kind read as one number", () => {
  it('gives the route, verdict and JSON text the whole row gives, for every word it lists and past what it holds', () => {
    const dir = scratch('agent-proxy-plain-kind-').dir;
    verdictsWrittenByHand(dir);
    // JSON texts after a few bytes of white space, or after more than 4,095 (json_at past what the number holds).
    const texts = Array.from({ length: 120 }, (_, i) => ({ text: JSON.stringify({ type: 'm', i }), before: i % 20 === 7 ? ' '.repeat(5000) : ' '.repeat(i % 3) }));
    const file = writeRawMessagesDb(dir, 'kinds.db', texts.map(({ text, before }) => ({ carrier: 'frame' as const, raw: Buffer.from(`${before}${text}`), text })));
    const db = new Database(file);
    db.exec("INSERT INTO schema_refs (ref) VALUES ('https://x.test/a.json#A'), ('https://x.test/b.json#B')");
    const refIds = db.prepare('SELECT id FROM schema_refs ORDER BY id').pluck().all() as number[];
    const edit = db.prepare('UPDATE messages SET sender = ?, carrier = ?, channel = ?, status = ?, schema_ref_id = ?, reason = NULL WHERE seq = ?');
    texts.forEach((_, i) => {
      // A ref id past 1,022 (one the table lacks: read as none either way), or one the table holds, or none.
      const ref = i % 11 === 5 ? 5000 : i % 4 === 0 ? null : refIds[i % refIds.length]!;
      edit.run(i % 2 === 0 ? 'client' : 'server', CARRIERS[i % CARRIERS.length], CHANNELS[i % CHANNELS.length], STATUSES[i % STATUSES.length], ref, i + 1);
    });
    db.close();
    const reader = RecordingReader.open(file);
    try {
      const whole = [...reader.messagesInOrder()];
      const exported = [...RecordingReader.messagesWithTextInOrder(reader)];
      const seen = (m: Pick<MessageTextRow, 'sender' | 'carrier' | 'channel' | 'verdict'>) => [m.sender, m.carrier, m.channel, m.verdict.status, m.verdict.schemaRef ?? null, m.verdict.findings.length];
      expect(exported.map(seen)).toEqual(whole.map(seen));
      // Every text is taken from raw's text, and is the stored one, with what comes before it.
      expect(exported.map((m) => m.raw === null && m.jsonText)).toEqual(texts.map((t) => t.text));
      expect(exported.map((m) => m.textBefore)).toEqual(texts.map((t) => t.before));
      // The words above and every status came through, with and without a ref.
      expect(new Set(exported.map((m) => m.channel))).toEqual(new Set(CHANNELS));
      expect(new Set(exported.map((m) => `${m.verdict.status} ${m.verdict.schemaRef !== undefined}`)).size).toBe(6);
    } finally {
      reader.close();
    }
  });
});
