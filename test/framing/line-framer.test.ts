import { describe, expect, it } from 'vitest';
import { LineFramer } from '../../src/framing/line-framer.js';
import { LengthPrefixedFramer } from '../../src/framing/length-prefixed-framer.js';

describe('LineFramer', () => {
  it('splits on LF only: U+2028/U+2029 are content, and a trailing CR stays in the raw bytes', () => {
    const body = Buffer.from('{"a":"x\u2028y"}\n{"b":"\u2029"}\r\n{"c":1}');
    const framer = new LineFramer();
    const frames = [...framer.push(body.subarray(0, 5)), ...framer.push(body.subarray(5)), ...framer.end()];
    expect(frames.map((f) => f.text)).toEqual(['{"a":"x\u2028y"}', '{"b":"\u2029"}', '{"c":1}']);
    expect(frames[1].raw.toString()).toBe('{"b":"\u2029"}\r\n');
    expect(frames.map((f) => f.line)).toEqual([1, 2, 3]);
    expect(frames[2].unterminated).toBe(true);
    expect(Buffer.concat(frames.map((f) => f.raw)).equals(body)).toBe(true);
  });

  it('flags invalid UTF-8 without losing the bytes', () => {
    const bad = Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]);
    const [frame] = new LineFramer().push(bad);
    expect(frame.invalidUtf8).toBe(true);
    expect(frame.raw.equals(bad)).toBe(true);
  });

  it('keeps only the first keepBytes of a longer line, and says how long it was', () => {
    const framer = new LineFramer(8);
    const frames = [
      ...framer.push(Buffer.from('abcde')),
      ...framer.push(Buffer.from('fghij')),
      ...framer.push(Buffer.from('klmnop\nok\r\n0123456789')),
      ...framer.push(Buffer.from('abc')),
      ...framer.end(),
    ];
    expect(frames.map((f) => f.raw.toString())).toEqual(['abcdefgh', 'ok\r\n', '01234567']);
    expect(frames.map((f) => f.totalBytes)).toEqual([17, 4, 13]);
    expect(frames.map((f) => f.unterminated)).toEqual([false, false, true]);
    expect(frames.map((f) => f.line)).toEqual([1, 2, 3]);
    // A line within the limit is whole, with its text; a cut one has none (it is not parsed).
    expect(frames[1].text).toBe('ok');
    expect(frames[0].text).toBe('');
    // Exactly keepBytes, LF included, is not cut.
    const [exact] = new LineFramer(3).push(Buffer.from('ab\n'));
    expect(exact).toMatchObject({ totalBytes: 3, text: 'ab' });
    expect(exact.raw.toString()).toBe('ab\n');
  });
});

describe('LengthPrefixedFramer', () => {
  it('reassembles frames split across chunks and reports a mid-frame end', () => {
    const payloads = [Buffer.from('hello'), Buffer.alloc(0), Buffer.from('a longer payload')];
    const body = Buffer.concat(payloads.flatMap((p) => [Buffer.from([0, 0, 0, p.length]), p]));
    for (const step of [1, 3, 5, body.length]) {
      const framer = new LengthPrefixedFramer();
      const frames = [];
      for (let i = 0; i < body.length; i += step) frames.push(...framer.push(body.subarray(i, i + step)));
      expect(frames.map((f) => f.payload?.toString())).toEqual(['hello', '', 'a longer payload']);
      expect(frames.map((f) => f.totalBytes)).toEqual([9, 4, 20]);
      expect(Buffer.concat(frames.map((f) => f.raw)).equals(body)).toBe(true);
      expect(framer.end()).toBeUndefined();
    }
    const framer = new LengthPrefixedFramer();
    framer.push(Buffer.from([0, 0, 0, 9, 1, 2]));
    expect(framer.nextLength()).toBe(9);
    expect(framer.end()).toEqual({ raw: Buffer.from([0, 0, 0, 9, 1, 2]), totalBytes: 6 });
  });

  it('keeps only the start of a frame longer than keepBytes, counts the rest, and frames on after it', () => {
    const big = Buffer.alloc(1000, 7);
    const body = Buffer.concat([Buffer.from([0, 0, 3, 232]), big, Buffer.from([0, 0, 0, 2]), Buffer.from('ok'), Buffer.from([0, 0, 1, 0, 9])]);
    const framer = new LengthPrefixedFramer(16);
    const frames = [];
    for (let i = 0; i < body.length; i += 7) frames.push(...framer.push(body.subarray(i, i + 7)));
    expect(frames).toHaveLength(2);
    expect(frames[0].raw.equals(body.subarray(0, 16))).toBe(true);
    expect(frames[0].totalBytes).toBe(1004);
    expect(frames[0].payload).toBeUndefined();
    expect(frames[1].payload?.toString()).toBe('ok');
    // A frame cut off by the end of the stream: the bytes that came, and how many.
    expect(framer.end()).toEqual({ raw: Buffer.from([0, 0, 1, 0, 9]), totalBytes: 5 });
  });
});
