import { describe, expect, it } from 'vitest';
import { exportNdjsonPaced, exportNdjsonText } from '../../src/export/ndjson-export.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { scratch } from '../support/temp-dir.js';
import { verdictsWrittenByHand } from '../support/agreement-pending.js';
import { writeRawMessagesDb } from '../support/raw-messages-db.js';

describe('export to a stream, its chunks filled again once written', () => {
  it('never fills a chunk again before the stream says its bytes are written, and does fill one again after', async () => {
    const dir = scratch('agent-proxy-export-paced-').dir;
    verdictsWrittenByHand(dir);
    // ~3.5 MB of lines: several chunks of a MiB.
    const messages = Array.from({ length: 6000 }, (_, i) => {
      const text = JSON.stringify({ n: i, pad: 'x'.repeat(400 + (i % 50)) });
      return { carrier: 'event' as const, raw: Buffer.from(`data: ${text}\n\n`), text };
    });
    const reader = RecordingReader.open(writeRawMessagesDb(dir, 'paced.db', messages));
    try {
      const expected = exportNdjsonText(reader);
      // A stream that writes a chunk only once the next one comes (one in flight), as a full pipe does.
      const copies: Buffer[] = [];
      const memory = new Set<ArrayBufferLike>();
      let reused = false;
      let inFlight: { chunk: Buffer; copy: Buffer; written: () => void } | undefined;
      const finish = () => {
        if (inFlight === undefined) return;
        // Its bytes are still the ones handed to the stream: nothing filled the chunk meanwhile.
        expect(inFlight.chunk.equals(inFlight.copy)).toBe(true);
        inFlight.written();
        inFlight = undefined;
      };
      await exportNdjsonPaced(
        reader,
        (chunk, written) => {
          finish();
          if (memory.has(chunk.buffer)) reused = true;
          memory.add(chunk.buffer);
          const copy = Buffer.from(chunk);
          copies.push(copy);
          inFlight = { chunk, copy, written };
          return true;
        },
        async () => undefined,
      );
      finish();
      expect(copies.length).toBeGreaterThan(2);
      expect(Buffer.concat(copies).toString('utf8')).toBe(expected);
      expect(reused).toBe(true);
    } finally {
      reader.close();
    }
  });
});
