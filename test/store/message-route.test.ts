/**
 * `export`'s and `validate`'s readers read a message's sender, carrier and channel as one value (store/message-route.ts):
 * they must come out as the reader of whole rows gives them, a channel with commas, an empty one, none,
 * and a carrier with a comma (a file changed by hand) included.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { verdictsWrittenByHand } from '../support/agreement-pending.js';
import { scratch } from '../support/temp-dir.js';
import { writeRawMessagesDb } from '../support/raw-messages-db.js';

describe("a message's route read as one value", () => {
  it('gives the sender, carrier and channel of the row, however odd', () => {
    const dir = scratch('agent-proxy-route-').dir;
    verdictsWrittenByHand(dir);
    const file = writeRawMessagesDb(dir, 'routes.db', ['{"a":1}', '{"b":2}', '{"c":3}', '{"d":4}', '{"e":5}', 'not json'].map((text, i) => ({ carrier: 'frame' as const, raw: Buffer.from(text), ...(i < 5 ? { text } : {}) })));
    const db = new Database(file);
    const edit = db.prepare('UPDATE messages SET sender = ?, carrier = ?, channel = ? WHERE seq = ?');
    edit.run('server', 'frame', 'text', 1);
    edit.run('client', 'frame', 'a,b,,c', 2);
    edit.run('server', 'frame', '', 3);
    edit.run('client', 'fr,ame', 'x,y', 4);
    edit.run('server', 'body', null, 5);
    edit.run('client', 'line', 'stdout', 6);
    // No reason: export reads such a JSON message the short way (its route as one value too).
    db.exec('UPDATE messages SET reason = NULL');
    db.close();
    const reader = RecordingReader.open(file);
    try {
      const route = (m: { sender: string; carrier: string; channel: string | null }) => [m.sender, m.carrier, m.channel];
      const expected = [
        ['server', 'frame', 'text'],
        ['client', 'frame', 'a,b,,c'],
        ['server', 'frame', ''],
        ['client', 'fr,ame', 'x,y'],
        ['server', 'body', null],
        ['client', 'line', 'stdout'],
      ];
      expect([...reader.messagesInOrder()].map(route)).toEqual(expected);
      expect([...RecordingReader.messagesToJudgeInOrder(reader)].map(route)).toEqual(expected);
      expect([...RecordingReader.messagesToJudge(reader, 1)].map(route)).toEqual(expected);
      const exported = [...RecordingReader.messagesWithTextInOrder(reader)];
      expect(exported.map((m) => m.jsonText !== undefined && m.raw === null)).toEqual([true, true, true, true, true, false]);
      expect(exported.map(route)).toEqual(expected);
    } finally {
      reader.close();
    }
  });
});
