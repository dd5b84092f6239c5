/**
 * ReadBatch: the chunks of one socket read of an event stream go to the recorder as one push, in
 * order, and a tap that ends in the same tick still gets them first.
 */
import { describe, expect, it } from 'vitest';
import { ReadBatch } from '../../src/record/relay/read-batch.js';
import type { BodyTap } from '../../src/record/pipeline/recording-sink.js';

/** A tap that keeps what it is given, in order: what the recorder would be handed. */
function keepingTap(): BodyTap & { calls: Array<['push', string] | ['end', boolean]> } {
  const calls: Array<['push', string] | ['end', boolean]> = [];
  return {
    calls,
    push: (chunk) => void calls.push(['push', chunk.toString()]),
    end: (complete) => void calls.push(['end', complete]),
  };
}

const event = (i: number) => `data: {"n":${i}}\n\n`;
const nextTick = () => new Promise<void>((resolve) => process.nextTick(resolve));

describe('ReadBatch', () => {
  it('hands on the chunks of one tick as one push once the tick is over, in order, and a later tick as its own', async () => {
    const tap = keepingTap();
    const batch = new ReadBatch(tap);
    for (let i = 0; i < 3; i++) batch.push(Buffer.from(event(i)));
    // The rest of the read may still come: nothing is handed on yet.
    expect(tap.calls).toEqual([]);
    await nextTick();
    expect(tap.calls).toEqual([['push', event(0) + event(1) + event(2)]]);
    batch.push(Buffer.from(event(3)));
    await new Promise<void>((resolve) => setImmediate(resolve));
    batch.end(true);
    expect(tap.calls).toEqual([['push', event(0) + event(1) + event(2)], ['push', event(3)], ['end', true]]);
  });

  it('a tap that takes the chunks of a read as they are gets them without a copy, one call per read', async () => {
    const calls: Array<{ chunks: readonly Buffer[]; bytes: number }> = [];
    const tap: BodyTap = {
      push: () => expect.unreachable('a read of several chunks goes to pushChunks'),
      pushChunks: (chunks, bytes) => void calls.push({ chunks, bytes }),
      end: () => undefined,
    };
    const batch = new ReadBatch(tap);
    const chunks = [0, 1, 2].map((i) => Buffer.from(event(i)));
    for (const chunk of chunks) batch.push(chunk);
    await nextTick();
    expect(calls).toHaveLength(1);
    // The very buffers capture forwarded: the recorder copies them once, into its batch.
    expect(calls[0].chunks).toEqual(chunks);
    calls[0].chunks.forEach((chunk, i) => expect(chunk).toBe(chunks[i]));
    expect(calls[0].bytes).toBe(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  });

  it('a stream that ends in the same tick as its last read still records that read first', () => {
    const tap = keepingTap();
    const batch = new ReadBatch(tap);
    batch.push(Buffer.from(event(0)));
    batch.push(Buffer.from(event(1)));
    batch.end(false);
    expect(tap.calls).toEqual([
      ['push', event(0) + event(1)],
      ['end', false],
    ]);
  });
});
