import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { RecordingClock } from '../../src/core/recording-clock.js';
import { TrafficRecorder } from '../../src/record/pipeline/traffic-recorder.js';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { jsonStartIn, jsonTextAt } from '../../src/store/stored-json.js';
import { scratch } from '../support/temp-dir.js';
import { useCleanups } from '../support/cleanups.js';
import { storedBytes } from '../support/stored-bytes.js';

useCleanups();

const KEY = 'sk-proj-Ab3dEfGhIjKlMnOpQrStUvWxYz0123456789_-abcdEFGH';

/** SSE events of every shape the recorder tells the writer where their text is, or does not. */
const EVENTS = [
  'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"tok "}\n\n',
  'data:{"a":"no space"}\r\n\r\n',
  'data: {"a":"trailing space"} \n\n',
  'data: {"a":1}\nid: 7\n\n',
  'data: 7\nid: 7\n\n',
  'event: x\ndata: {"a":2}\n\n',
  'data: {"a":\ndata: 3}\n\n',
  'data: data: {"a":4}\n\n',
  `data: {"key":"${KEY}"}\n\n`,
  'data: {"t":"日本 \uFFFD"}\n\n',
  'data: "sk-ant-not-a-key-of-the-right-length"\n\n',
  // A credential beside the data line, not in it: found all the same.
  `data: {"a":5}\nid: ${KEY}\n\n`,
  `event: ${KEY}\ndata: {"a":6}\n\n`,
].join('');

/** WebSocket text frames, each all JSON, or JSON and white space, or a credential. */
const FRAMES = ['{"type":"queue_update","steering":[]}', '{"a":1}\n', ' [2] ', `{"k":"${KEY}"}`, '{"t":"héllo"}'];

describe('the recorder tells the writer where a message was read from in its bytes', () => {
  it('each JSON row is where jsonStartIn finds it in the stored bytes, or stored whole when it finds it nowhere; no credential on disk', () => {
    const file = scratch('agent-proxy-wire-text-').file('r.db');
    const registry = SchemaRegistry.load({ useEnv: false });
    const writer = RecordingWriter.open(file, { toolVersion: 'test', mode: 'record', schemaHashes: registry.hashes(), startedAt: new Date() });
    const recorder = new TrafficRecorder({ writer, registry, clock: new RecordingClock() });
    const sse = recorder.openExchange({ transport: 'http', method: 'GET', path: '/events' });
    const tap = sse.tap({ kind: 'sse', sender: 'server' });
    tap.push(Buffer.from(EVENTS));
    tap.end(true);
    sse.end({ outcome: 'complete' });
    const ws = recorder.openExchange({ transport: 'ws', method: 'GET', path: '/socket' });
    for (const frame of FRAMES) ws.record('server', Buffer.from(frame), { carrier: 'frame', channel: 'text' });
    ws.end({ outcome: 'complete' });
    writer.close();

    const db = new Database(file, { readonly: true });
    const columns = db.prepare('SELECT id, json, json_at AS jsonAt FROM messages ORDER BY id').all() as Array<{ id: number; json: string | null; jsonAt: number | null }>;
    db.close();
    const reader = RecordingReader.open(file);
    const raws = [...reader.messages(1), ...reader.messages(2)].map((m) => m.raw);
    reader.close();
    expect(raws.length).toBe(18);
    const places = columns.map(({ json, jsonAt }, i) => {
      const raw = raws[i];
      if (jsonAt !== null) {
        expect(json).toBeNull();
        expect(jsonStartIn(raw, jsonTextAt(raw, jsonAt))).toBe(jsonAt);
      } else if (json !== null) expect(jsonStartIn(raw, json)).toBeNull();
      return jsonAt ?? (json === null ? 'none' : 'whole');
    });
    // Read from its data line (6 or 5 bytes in), from the id line's `7`, stored whole, or not JSON.
    expect(places).toEqual([6, 5, 'whole', 'whole', 12, 15, 'whole', 'none', 6, 'whole', 6, 'whole', 24, 0, 'whole', 'whole', 0, 0]);
    expect(storedBytes(file).includes(KEY)).toBe(false);
  });
});
