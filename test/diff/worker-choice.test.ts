/**
 * Whether `diff` scans the second side in a worker (unset AGENT_PROXY_DIFF_WORKER) goes by how many
 * messages the two recordings hold, not their size: a closed recording of format 9 keeps its
 * messages' bytes compressed, so 200,000 messages of a token stream take 16 MB instead of 51.
 */
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../src/core/verdict.js';
import { coreToSpare, workerPaysFor } from '../../src/diff/scan-parallel.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { meta } from '../store/store-fixtures.js';
import { useCleanups } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';

useCleanups();

const VALID: Verdict = { status: 'valid', findings: [] };

/** A closed recording of one exchange: `count` messages of `raw` each. */
function recording(file: string, count: number, raw: (n: number) => Buffer): string {
  const writer = RecordingWriter.open(file, meta());
  const exchangeId = writer.beginExchange({ transport: 'ws', tOffsetMs: 0 });
  for (let n = 0; n < count; n++) writer.addMessage({ exchangeId, sender: 'server', carrier: 'frame', channel: 'text', tOffsetMs: n, raw: raw(n), verdict: VALID });
  writer.close();
  return file;
}

describe("diff's worker", () => {
  it('is not started for small recordings, nor for big ones of few messages', () => {
    const dir = scratch('worker-choice-');
    const small = recording(dir.file('small.db'), 10, (n) => Buffer.from(`{"n":${n}}`));
    expect(workerPaysFor([small, small])).toBe(false);
    // 3 MB of bytes that do not compress each: over the size that opens a file to count its messages, few messages.
    const big = recording(dir.file('big.db'), 3, () => randomBytes(3 * 1024 * 1024));
    expect(statSync(big).size).toBeGreaterThan(9 * 1024 * 1024);
    expect(workerPaysFor([big, big])).toBe(false);
  });

  it('is started for recordings of 128,000 messages together, however small their compressed files', () => {
    const dir = scratch('worker-choice-');
    const stream = recording(dir.file('stream.db'), 64_000, (n) => Buffer.from(`data: {"type":"delta","text":"tok${n % 1000} "}\n\n`));
    // ~80 bytes a message once compressed: 32 MB of recordings would be ~400,000 such messages.
    expect(statSync(stream).size).toBeLessThan(8 * 1024 * 1024);
    expect(workerPaysFor([stream, stream])).toBe(true);
    expect(workerPaysFor([stream])).toBe(false);
  });

  it('is started only with a core to spare besides the main thread: it costs CPU, and buys wall time only on an idle core', () => {
    expect(coreToSpare(2, 0)).toBe(true);
    expect(coreToSpare(2, 0.5)).toBe(false);
    expect(coreToSpare(8, 6)).toBe(true);
    expect(coreToSpare(8, 6.5)).toBe(false);
    expect(coreToSpare(1, 0)).toBe(false);
  });
});
