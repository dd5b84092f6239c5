import { join } from 'node:path';
import { RecordingWriter } from '../../src/store/recording-writer.js';

/** A message written by hand: its raw bytes, and the JSON text record would store for them (undefined: not JSON). */
export interface RawMessageByHand {
  carrier: 'frame' | 'event';
  raw: Buffer;
  text?: string;
}

/**
 * Writes `messages` as the server's messages of one WebSocket exchange into `dir/name`, each
 * `unchecked` by hand (the caller marks the folder verdictsWrittenByHand), and returns the file.
 */
export function writeRawMessagesDb(dir: string, name: string, messages: readonly RawMessageByHand[]): string {
  const file = join(dir, name);
  const writer = RecordingWriter.open(file, { toolVersion: '0.1.0', mode: 'record', schemaHashes: {}, startedAt: new Date('2026-01-01T00:00:00Z') });
  const id = writer.beginExchange({ transport: 'ws', path: '/t', method: 'GET', tOffsetMs: 1 });
  messages.forEach((m, i) => {
    const json = m.text === undefined ? {} : { json: JSON.parse(m.text) as unknown, jsonText: m.text };
    writer.addMessage({ exchangeId: id, sender: 'server', carrier: m.carrier, tOffsetMs: 2 + i, raw: m.raw, ...json, verdict: { status: 'unchecked', reason: 'by hand', findings: [] } });
  });
  writer.close();
  return file;
}
