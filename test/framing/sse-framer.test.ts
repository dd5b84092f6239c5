import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SseFramer, type SseFrame } from '../../src/framing/sse-framer.js';

function frameAll(body: string | Buffer, chunkSizes: number[]): SseFrame[] {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const framer = new SseFramer();
  const frames: SseFrame[] = [];
  let offset = 0;
  let i = 0;
  while (offset < bytes.length) {
    const size = chunkSizes[i++ % chunkSizes.length];
    frames.push(...framer.push(bytes.subarray(offset, offset + size)));
    offset += size;
  }
  frames.push(...framer.end());
  return frames;
}

const MIXED =
  ': keep-alive\n\n' +
  'event: message\nid: RUN_STARTED_1\ndata: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n' +
  'data: {"type":"TEXT_MESSAGE_CONTENT",\r\ndata: "messageId":"m","delta":"héllo \u2028 wörld"}\r\n\r\n' +
  ': ping\r\n\r\n' +
  'retry: 1000\rdata: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\r\r' +
  'data: {"trailing":true}';

describe('SseFramer', () => {
  it('gives back every byte of the body, whatever the chunking', () => {
    for (const sizes of [[1], [2], [3, 7], [5, 1, 13], [4096]]) {
      const frames = frameAll(MIXED, sizes);
      expect(Buffer.concat(frames.map((f) => f.raw)).toString('utf8')).toBe(MIXED);
      expect(frames.map((f) => f.data)).toEqual([
        undefined,
        '{"type":"RUN_STARTED","threadId":"t","runId":"r"}',
        '{"type":"TEXT_MESSAGE_CONTENT",\n"messageId":"m","delta":"héllo \u2028 wörld"}',
        undefined,
        '{"type":"RUN_FINISHED","threadId":"t","runId":"r"}',
        '{"trailing":true}',
      ]);
    }
  });

  it('parses fields, skips comments and frames the unterminated tail', () => {
    const frames = frameAll(MIXED, [4096]);
    expect(frames[0]).toEqual({ raw: Buffer.from(': keep-alive\n\n'), unterminated: false, totalBytes: 14 });
    expect(frames[1]).toMatchObject({ event: 'message', id: 'RUN_STARTED_1', unterminated: false });
    expect(frames[4].retry).toBe('1000');
    expect(frames[5].unterminated).toBe(true);
  });

  it('keeps a CRLF split across chunks inside one frame', () => {
    const body = 'data: {"a":1}\r\n\r\ndata: {"b":2}\r\n\r\n';
    const framer = new SseFramer();
    const cut = body.indexOf('\r\n\r\n') + 3; // split between the last CR and LF
    const first = framer.push(Buffer.from(body.slice(0, cut)));
    expect(first).toHaveLength(0);
    const rest = framer.push(Buffer.from(body.slice(cut)));
    expect(rest.map((f) => f.raw.toString())).toEqual(['data: {"a":1}\r\n\r\n', 'data: {"b":2}\r\n\r\n']);
  });

  it('frames an event of many chunks the same as one pushed whole, in every line ending', () => {
    const big = 'ü'.repeat(100_000);
    for (const eol of ['\n', '\r\n', '\r']) {
      const body = `: open${eol}${eol}event: snapshot${eol}data: {"a":"${big}",${eol}data: "b":1}${eol}${eol}data: {"type":"RUN_FINISHED"}${eol}${eol}`;
      const whole = frameAll(body, [Buffer.byteLength(body)]);
      for (const sizes of [[1000], [4095, 1], [7, 65536]]) {
        const framed = frameAll(body, sizes);
        // toEqual walks the frames' 200 KB buffers a byte at a time (~6 s of CPU for this test): compared
        // whole first, expect runs only to say what differs.
        if (!isDeepStrictEqual(framed, whole)) expect(framed).toEqual(whole);
      }
      expect(whole.map((f) => f.raw.toString()).join('')).toBe(body);
      expect(whole.map((f) => f.event ?? null)).toEqual([null, 'snapshot', null]);
      expect(JSON.parse(whole[1].data!)).toEqual({ a: big, b: 1 });
    }
  });

  it('keeps only the start of a block longer than keepBytes, with its size, and frames on after it', () => {
    const long = `data: {"delta":"${'z'.repeat(5000)}"}\n\n`;
    const body = `data: {"a":1}\n\n${long}data: {"b":2}\n\ndata: ${'q'.repeat(300)}`;
    const bytes = Buffer.from(body);
    for (const size of [7, 64, bytes.length]) {
      const framer = new SseFramer(100);
      const frames: SseFrame[] = [];
      for (let offset = 0; offset < bytes.length; offset += size) frames.push(...framer.push(bytes.subarray(offset, offset + size)));
      frames.push(...framer.end());
      expect(frames.map((f) => f.totalBytes)).toEqual([15, long.length, 15, 306]);
      expect(frames.map((f) => f.raw.length)).toEqual([15, 100, 15, 100]);
      expect(frames[1].raw.toString()).toBe(long.slice(0, 100));
      // A cut block is not parsed; the blocks around it are.
      expect(frames.map((f) => f.data)).toEqual(['{"a":1}', undefined, '{"b":2}', undefined]);
      expect(frames[3].unterminated).toBe(true);
    }
  });

  it('frames random bodies the same whatever the chunking (line endings split anywhere)', () => {
    // A small seeded generator: the same bodies on every run.
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const tokens = ['data: {"a":1}', 'data: é✓', ': ping', 'event: x', 'id: 7', 'retry: 5', 'data:', '\n', '\r', '\r\n', '\n\n', '\r\r', '\r\n\r\n'];
    for (let round = 0; round < 300; round++) {
      let body = '';
      for (let t = random(30); t >= 0; t--) body += tokens[random(tokens.length)];
      const bytes = Buffer.from(body);
      const whole = frameAll(bytes, [bytes.length || 1]);
      const sizes = Array.from({ length: 4 }, () => 1 + random(9));
      const chunked = frameAll(bytes, sizes);
      expect(chunked, `${JSON.stringify(body)} in chunks of ${sizes}`).toEqual(whole);
      expect(Buffer.concat(chunked.map((f) => f.raw)).equals(bytes)).toBe(true);
    }
  });

  it('splits multi-byte characters across chunks without corrupting them', () => {
    const body = 'data: {"delta":"你好，世界 مرحبا"}\n\n';
    const frames = frameAll(body, [1]);
    expect(frames).toHaveLength(1);
    expect(JSON.parse(frames[0].data!)).toEqual({ delta: '你好，世界 مرحبا' });
  });
});
