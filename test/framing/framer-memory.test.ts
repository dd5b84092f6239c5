import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { SseFramer } from '../../src/framing/sse-framer.js';
import { LineFramer } from '../../src/framing/line-framer.js';
import { LengthPrefixedFramer } from '../../src/framing/length-prefixed-framer.js';

// The collector, so that what a framer retains can be told from garbage not yet collected.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** JS heap still in use after `feed`, with what it returned kept alive, compared with before. */
function retainedHeap(feed: () => unknown): { bytes: number; kept: unknown } {
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = feed();
  gc();
  return { bytes: process.memoryUsage().heapUsed - before, kept };
}

const MB = 1024 * 1024;
/** What a framer may hold on the JS heap whatever it was fed: its bytes live outside the heap. */
const HEAP_ALLOWANCE = 8 * MB;

/** `total` bytes of `pattern` repeated, pushed in chunks of `chunkSize` bytes. */
function feedPattern(push: (chunk: Buffer) => unknown[], pattern: string, total: number, chunkSize = 64 * 1024): number {
  const chunk = Buffer.from(pattern.repeat(Math.ceil(chunkSize / pattern.length))).subarray(0, chunkSize - (chunkSize % pattern.length));
  let frames = 0;
  for (let sent = 0; sent < total; sent += chunk.length) frames += push(chunk).length;
  return frames;
}

describe('what a framer holds is bounded by what it keeps, whatever the framing', () => {
  it('SSE: 16 MB of one-byte lines with no blank line', () => {
    const framer = new SseFramer(MB);
    const { bytes, kept } = retainedHeap(() => {
      expect(feedPattern((c) => framer.push(c), 'a\n', 16 * MB)).toBe(0);
      return framer;
    });
    expect(kept).toBe(framer);
    expect(bytes).toBeLessThan(HEAP_ALLOWANCE);
    const [frame] = framer.end();
    expect(frame.raw.length).toBe(MB);
    expect(frame.totalBytes).toBeGreaterThanOrEqual(16 * MB);
    expect(frame.data).toBeUndefined();
  });

  it('SSE: a block of a million empty data lines within keepBytes', () => {
    const framer = new SseFramer(10 * MB);
    const { bytes } = retainedHeap(() => feedPattern((c) => framer.push(c), 'data:\n', 6 * MB));
    expect(bytes).toBeLessThan(HEAP_ALLOWANCE);
    const [frame] = framer.push(Buffer.from('\n'));
    // Every line was read: n empty values, joined by n - 1 LFs.
    const lines = (frame.totalBytes - 1) / 'data:\n'.length;
    expect(frame.data).toBe('\n'.repeat(lines - 1));
  });

  it('SSE: a block of a million comment lines within keepBytes', () => {
    const framer = new SseFramer(10 * MB);
    const { bytes } = retainedHeap(() => feedPattern((c) => framer.push(c), ':\n', 8 * MB));
    expect(bytes).toBeLessThan(HEAP_ALLOWANCE);
    const [frame] = framer.push(Buffer.from('\n'));
    expect(frame.data).toBeUndefined();
    expect(frame.raw.length).toBe(frame.totalBytes);
  });

  it('SSE: a long line that arrives one byte at a time', () => {
    const framer = new SseFramer(2 * MB);
    const { bytes } = retainedHeap(() => feedPattern((c) => framer.push(c), 'x', 2 * MB, 1));
    expect(bytes).toBeLessThan(HEAP_ALLOWANCE);
    const [frame] = framer.end();
    expect(frame.raw.equals(Buffer.alloc(2 * MB, 'x'))).toBe(true);
  });

  it('lines: a long line that arrives one byte at a time', () => {
    const framer = new LineFramer(2 * MB);
    const { bytes } = retainedHeap(() => feedPattern((c) => framer.push(c), 'y', 2 * MB, 1));
    expect(bytes).toBeLessThan(HEAP_ALLOWANCE);
    const [frame] = framer.push(Buffer.from('\n'));
    expect(frame.raw.length).toBe(2 * MB);
    expect(frame.totalBytes).toBe(2 * MB + 1);
  });

  it('length-prefixed: a frame that arrives one byte at a time', () => {
    const framer = new LengthPrefixedFramer(4 + 2 * MB);
    const prefix = Buffer.alloc(4);
    prefix.writeUInt32BE(2 * MB);
    framer.push(prefix);
    const { bytes } = retainedHeap(() => feedPattern((c) => framer.push(c), 'z', 2 * MB - 1, 1));
    expect(bytes).toBeLessThan(HEAP_ALLOWANCE);
    const [frame] = framer.push(Buffer.from('z'));
    expect(frame.payload!.equals(Buffer.alloc(2 * MB, 'z'))).toBe(true);
  });
});
