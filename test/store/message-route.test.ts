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

  it("gives validate's read in order, which codes a route and whether there are findings as one number, what the read of an exchange gives", () => {
    const dir = scratch('agent-proxy-route-').dir;
    verdictsWrittenByHand(dir);
    const texts = ['{"a":1}', '{"b":2}', '{"c":3}', '{"d":4}', '{"e":5}', '{"f":6}', '{"g":7}', '{"h":8}'];
    const file = writeRawMessagesDb(dir, 'codes.db', texts.map((text) => ({ carrier: 'frame' as const, raw: Buffer.from(text), text })));
    const db = new Database(file);
    const edit = db.prepare('UPDATE messages SET sender = ?, carrier = ?, channel = ? WHERE seq = ?');
    edit.run('client', 'line', 'stdout', 1); // every word listed: one number
    edit.run('server', 'frame', 'custom', 2); // a channel no recorder writes
    edit.run('client', 'event', null, 3);
    // A channel and a carrier that are not text (TEXT affinity keeps a blob): read as before (the channel through the route's text, the carrier apart).
    db.prepare("UPDATE messages SET channel = CAST('text' AS BLOB) WHERE seq = 4").run();
    db.prepare("UPDATE messages SET carrier = CAST('frame' AS BLOB) WHERE seq = 5").run();
    // Findings: counted and held; counted but none held; held but counted 0; a count that is not a number.
    const addFinding = db.prepare("INSERT INTO findings (message_id, exchange_id, rule, severity, pointer, message) SELECT id, exchange_id, ?, 'error', '', 'by hand' FROM messages WHERE seq = ?");
    addFinding.run('rule.six', 6);
    addFinding.run('rule.eight', 8);
    db.prepare('UPDATE messages SET finding_count = 1 WHERE seq = 6').run();
    db.prepare('UPDATE messages SET finding_count = 3 WHERE seq = 7').run();
    db.prepare("UPDATE messages SET finding_count = 'x' WHERE seq = 2").run();
    db.close();
    const reader = RecordingReader.open(file);
    try {
      const inOrder = [...RecordingReader.messagesToJudgeInOrder(reader)];
      const ofExchange = [...RecordingReader.messagesToJudge(reader, 1)];
      expect(inOrder).toEqual(ofExchange);
      const seen = (m: { sender: string; carrier: unknown; channel: string | null; findings: Array<{ rule: string }> }) => [m.sender, m.carrier, m.channel, m.findings.map((f) => f.rule)];
      expect(inOrder.map(seen)).toEqual([
        ['client', 'line', 'stdout', []],
        ['server', 'frame', 'custom', []],
        ['client', 'event', null, []],
        ['server', 'frame', 'text', []],
        ['server', Buffer.from('frame'), null, []],
        ['server', 'frame', null, ['rule.six']],
        ['server', 'frame', null, []],
        ['server', 'frame', null, []],
      ]);
    } finally {
      reader.close();
    }
  });
});
