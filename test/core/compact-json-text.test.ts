import { describe, expect, it } from 'vitest';
import { isCompactJson, isCompactJsonIn } from '../../src/core/compact-json-text.js';

const LEVELS = 100_000;

/** What the check must agree with: the text is JSON, and JSON.stringify writes its value back the same. */
function roundTrips(text: string): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === text;
  } catch {
    return false;
  }
}

describe('isCompactJson', () => {
  it('takes the texts JSON.stringify writes', () => {
    const values: unknown[] = [
      null,
      true,
      false,
      0,
      -1.5,
      5e-7,
      1e21,
      -123456789012345680000,
      '',
      'a "quoted" \\ back\b\f\n\r\t slash \u0001\u001f\u007f \u2028 é 😀',
      [],
      {},
      [1, [2, [3, []]], {}],
      { a: 1, b: { c: [null, 'x'] }, 'k"ey': '', __proto__x: 0, '-1': 2, '1.5': 3, '': {} },
    ];
    for (const value of values) {
      const text = JSON.stringify(value);
      expect(isCompactJson(text), text).toBe(true);
    }
  });

  it('refuses what is not JSON, and JSON that JSON.stringify would write otherwise', () => {
    const texts = [
      '',
      ' ',
      '[',
      ']',
      '{"a"}',
      '{"a":}',
      '{"a":1,}',
      '[1,]',
      '[1 ]',
      ' 1',
      '1 ',
      '[1] [2]',
      '{"a":1}}',
      '[}',
      '{]',
      'tru',
      'nul',
      'True',
      'NaN',
      'Infinity',
      '-',
      '.5',
      '5.',
      '01',
      '+1',
      '-0',
      '1.0',
      '1E5',
      '1e21',
      '1e400',
      '0x10',
      '"open',
      '"\\u0041"',
      '"\\u000A"',
      '"\\u000a"',
      '"\\/"',
      '"\\x"',
      '"\\ud800"',
      '"\ud800"',
      '"\udc00"',
      '"tab\there"',
      '{"a":1,"a":2}',
      '{"a":1,"b":2,"a":3}',
      '{"b":1,"0":2}',
      '{"1":1}',
      '{"a" :1}',
      '{a:1}',
      "'a'",
    ];
    for (const text of texts) {
      expect(isCompactJson(text), text).toBe(false);
    }
    // Every refusal here is one the round trip would change (or one that is not JSON), but for a key
    // of digits already in order and an escaped lone surrogate, which it refuses all the same.
    const keptAllTheSame = new Set(['{"1":1}', '"\\ud800"']);
    for (const text of texts) expect(roundTrips(text), text).toBe(keptAllTheSame.has(text));
  });

  it('agrees with the round trip on texts made by changing one character of compact ones', () => {
    const base = JSON.stringify({ a: [1, -2.5, 'x\ny', true, null, { b: false, c: '' }], d: 1e-7, e: '😀' });
    const alphabet = ' "\\{}[],:0123456789-+.eEabcdefntrlsu\n';
    for (let at = 0; at < base.length; at++) {
      for (const c of alphabet) {
        const text = base.slice(0, at) + c + base.slice(at + 1);
        if (isCompactJson(text)) expect(roundTrips(text), text).toBe(true);
      }
    }
  });

  it('scans texts nested far deeper than a recursive walk can go', () => {
    const array = '['.repeat(LEVELS) + '1,"]"' + ']'.repeat(LEVELS);
    const object = '{"a":'.repeat(LEVELS) + '{},"b":[]' + '}'.repeat(LEVELS);
    expect(isCompactJson(array)).toBe(true);
    expect(isCompactJson(object)).toBe(true);
    // One character off, deep down: spacing, a repeated key, an unclosed level.
    expect(isCompactJson('['.repeat(LEVELS) + ' ' + ']'.repeat(LEVELS))).toBe(false);
    expect(isCompactJson('{"a":'.repeat(LEVELS) + '{"b":1,"b":2}' + '}'.repeat(LEVELS))).toBe(false);
    expect(isCompactJson('['.repeat(LEVELS) + ']'.repeat(LEVELS - 1))).toBe(false);
  });

  it('judges each text alone, after one it stopped in with objects still open', () => {
    // Stopped 2 levels down, in an object of more keys than it compares one by one (a set of them).
    const keys = Array.from({ length: 20 }, (_, i) => `"k${i}":${i}`).join(',');
    const stopped = `{"a":{${keys},"k3" :1}}`;
    const deepStopped = '{"a":'.repeat(LEVELS) + `{${keys},"k3":` + '}'.repeat(LEVELS);
    for (const before of [stopped, deepStopped]) {
      expect(isCompactJson(before)).toBe(false);
      // Keys of the objects left open are not this text's: none repeats, and the levels close as this text's own.
      expect(isCompactJson('{"k3":1,"a":{"k3":2}}')).toBe(true);
      expect(isCompactJson('[1]')).toBe(true);
      expect(isCompactJson('1]')).toBe(false);
      expect(isCompactJson('{"k1":1,"k1":2}')).toBe(false);
    }
  });

  it('judges a text inside a longer one as it judges that text alone, reading nothing around it', () => {
    const base = JSON.stringify({ a: [1, -2.5, 'x\ny', true, null, { b: false, c: '' }], d: 1e-7, e: '😀', t: true, n: null, f: false });
    const alphabet = ' "\\{}[],:0123456789-+.eEabcdefntrlsu\n';
    // What comes around a message's JSON text in its raw text: an SSE event's head and blank line, or
    // characters that would complete a text cut short (a closing quote, bracket, literal or digit).
    const around: Array<[string, string]> = [['data: ', '\n\n'], ['', ''], ['[', ']'], ['"', '"'], ['x', 'ue'], ['', '1'], ['', '}'], ['', 'rue'], ['{"a":', '"}']];
    const differ: string[] = [];
    for (let at = 0; at <= base.length; at++) {
      for (const c of ['', ...alphabet]) {
        const text = base.slice(0, at) + c + base.slice(at + 1);
        for (const cut of [text, text.slice(0, at), text.slice(0, -1)]) {
          const alone = isCompactJson(cut);
          for (const [before, after] of around) if (isCompactJsonIn(before + cut + after, before.length, before.length + cut.length) !== alone) differ.push(`${before}|${cut}|${after}`);
        }
      }
    }
    expect(differ).toEqual([]);
  });
});
