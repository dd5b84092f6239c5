import { describe, expect, it } from 'vitest';
import { endToEndHeaders, HeaderPairs, headerRecord, headerRecordJson, rawHeader } from '../../src/net/headers.js';
import { HeaderRedactor, REDACTED } from '../../src/judge/header-redaction.js';

describe('header handling', () => {
  it('drops hop-by-hop headers in any case, and those the Connection header names', () => {
    const raw = ['Host', 'a:1', 'CONNECTION', 'keep-alive, X-Hop', 'Keep-Alive', 'timeout=5', 'x-hop', '1', 'TE', 'trailers', 'Date', 'today', 'X-Keep', '2'];
    expect(endToEndHeaders(raw)).toEqual(['Host', 'a:1', 'Date', 'today', 'X-Keep', '2']);
    expect(endToEndHeaders(raw, { host: 'upstream:2' })).toEqual(['Host', 'upstream:2', 'Date', 'today', 'X-Keep', '2']);
    expect(endToEndHeaders(['HOST', 'a', 'hosts', 'b'], { host: 'u' })).toEqual(['HOST', 'u', 'hosts', 'b']);
    expect(endToEndHeaders(['Date', 'x', 'Server', 'y'], { drop: ['date'] })).toEqual(['Server', 'y']);
  });

  it('finds a header in any case', () => {
    expect(rawHeader(['Content-Type', 'a', 'content-type', 'b'], 'CONTENT-TYPE')).toBe('a');
    expect(rawHeader(['Content-Typo', 'a'], 'content-type')).toBeUndefined();
  });

  it('merges repeated names case-insensitively under their first spelling, with few or many headers', () => {
    const few = ['Set-Cookie', 'a', 'X-Id', '1', 'set-cookie', 'b', 'SET-COOKIE', 'c'];
    expect(headerRecord(few)).toEqual({ 'Set-Cookie': ['a', 'b', 'c'], 'X-Id': '1' });
    const many = [...Array.from({ length: 40 }, (_, i) => [`X-H${i}`, String(i)]).flat(), ...few];
    const record = headerRecord(many);
    expect(record['Set-Cookie']).toEqual(['a', 'b', 'c']);
    expect(Object.keys(record)).toHaveLength(42);
    // Only letters differ in case: names whose other characters differ by the case bit stay apart.
    const near = ['X-@', 'a', 'x-`', 'b', 'X-[', 'c', 'x-{', 'd', 'Ünï', 'e', 'üNÏ', 'f'];
    expect(headerRecord(near)).toEqual({ 'X-@': 'a', 'x-`': 'b', 'X-[': 'c', 'x-{': 'd', Ünï: ['e', 'f'] });
    expect(headerRecordJson(near)).toBe(JSON.stringify(headerRecord(near)));
    const proto = headerRecord(['__proto__', 'x', '__PROTO__', 'y']);
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(proto, '__proto__')?.value).toEqual(['x', 'y']);
  });

  it('writes the JSON text of the record from the pairs, the same bytes as serialising the record', () => {
    const cases = [
      [],
      ['Host', 'a', 'Accept', 'application/json'],
      ['X-Quote', 'say "hi" \\ now\ttab', 'X-Latin', 'caf\u00e9 \u00ff', 'X-Del', '\u007f'],
      // Plain pairs and pairs that need escaping, each first and after the other.
      ['Host', 'a', 'X-Quote', 'say "hi"', 'Accept', 'b', 'X-\u00e9', 'c'],
      ['X-Quote', 'say "hi"', 'Host', 'a'],
      ['Set-Cookie', 'a', 'set-cookie', 'b', 'X-Id', '1'],
      ['X-B', 'b', '9', 'nine', '10', 'ten', '1x', 'not an index'],
      ['__proto__', 'x', 'X', 'y'],
      Array.from({ length: 40 }, (_, i) => [`X-H${i}`, String(i)]).flat(),
    ];
    for (const pairs of cases) {
      const headers = new HeaderPairs(pairs);
      expect(headers.text).toBe(JSON.stringify(headerRecord(pairs)));
      expect(headerRecordJson(pairs, new HeaderRedactor())).toBe(JSON.stringify(new HeaderRedactor().record(pairs)));
      // The record, when asked for, is the record of the pairs; serialised, it is the text.
      expect(headers.value).toStrictEqual(headerRecord(pairs));
      expect(JSON.stringify({ headers })).toBe(`{"headers":${headers.text}}`);
    }
  });

  it('redacts credentials whatever the case of their names, keeping the scheme of Authorization', () => {
    const redactor = new HeaderRedactor(['X-Secret']);
    const raw = ['AUTHORIZATION', 'Bearer abc', 'cookie', 'k=v', 'X-SECRET', 's', 'X-Api-Key', 'key', 'Authorizatiox', 'kept'];
    expect(redactor.record(raw)).toEqual({ AUTHORIZATION: `Bearer ${REDACTED}`, cookie: REDACTED, 'X-SECRET': REDACTED, 'X-Api-Key': REDACTED, Authorizatiox: 'kept' });
    expect(redactor.redact(raw)).toEqual(['AUTHORIZATION', `Bearer ${REDACTED}`, 'cookie', REDACTED, 'X-SECRET', REDACTED, 'X-Api-Key', REDACTED, 'Authorizatiox', 'kept']);
  });
});
