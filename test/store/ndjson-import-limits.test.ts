/**
 * An NDJSON recording is input a user hands in: a line that no export writes, built to make
 * JSON.parse take gigabytes, is refused with its line number before parsing. (Depth is no reason to
 * refuse: an export writes a deep message's JSON as it is, and JSON.parse takes any depth.)
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_LINE_PARSE_COST, importNdjsonFile } from '../../src/store/ndjson-import.js';
import { useCleanups } from '../support/cleanups.js';
import { ndjsonRecording } from '../support/ndjson-recording.js';
import { scratch } from '../support/temp-dir.js';

useCleanups();

const HEADER_AND_EXCHANGE = ndjsonRecording([{ transport: 'ws', messages: [] }]);

function importing(extraLine: string): () => void {
  const dir = scratch();
  const file = dir.file('hostile.ndjson');
  writeFileSync(file, HEADER_AND_EXCHANGE + extraLine + '\n');
  return () => importNdjsonFile(file, dir.file('out.db'));
}

describe('import refuses a line no export writes, before parsing it', () => {
  it('a line of millions of {} whose parse would take gigabytes', () => {
    // 128 bytes of heap per `{},` once parsed: ~1.25 GiB for these 31 MB, refused from a scan of the text.
    const objects = Math.ceil((1.25 * MAX_LINE_PARSE_COST) / 128);
    const line = `{"type":"message","exchange":1,"json":[${'{},'.repeat(objects)}{}]}`;
    expect(importing(line)).toThrow(/line 3: a line of \d+ characters whose parse would take more than 1 GiB of memory/);
  });

  it('an ordinary export still imports', () => {
    const dir = scratch();
    const file = dir.file('ok.ndjson');
    writeFileSync(file, ndjsonRecording([{ transport: 'ws', messages: [{ sender: 'client', json: { deep: [[[['x']]]], list: Array.from({ length: 1000 }, () => ({})) } }] }]));
    expect(importNdjsonFile(file, dir.file('out.db')).messages).toBe(1);
  });
});
