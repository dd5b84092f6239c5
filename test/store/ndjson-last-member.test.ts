/**
 * lastJsonMember: the import takes a message's JSON text from its line only when it is the text
 * stringifyJson would write for the value JSON.parse kept; anything else is written again.
 */
import { describe, expect, it } from 'vitest';
import { stringifyJson } from '../../src/core/json-text.js';
import { lastJsonMember } from '../../src/store/ndjson-last-member.js';

const taken = (line: string) => lastJsonMember(line, JSON.parse(line) as Record<string, unknown>);

describe('lastJsonMember', () => {
  it('takes `json` or `rawJson` written last in JSON.stringify form, at any depth', () => {
    expect(taken('{"type":"message","raw":"x","json":{"a":[1,"b"]}}')).toEqual({ key: 'json', text: '{"a":[1,"b"]}' });
    expect(taken('{"type":"message","rawJson":null}')).toEqual({ key: 'rawJson', text: 'null' });
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const line = `{"type":"message","raw":"x","json":${deep}}`;
    expect(taken(line)?.text).toBe(stringifyJson(JSON.parse(deep)));
  });

  it('leaves the value to be written again when the line holds it otherwise', () => {
    // Not last; spaced; escaped where JSON.stringify would not; a number in another form.
    expect(taken('{"json":{"a":1},"raw":"x"}')).toBeUndefined();
    expect(taken('{"raw":"x","json":{"a": 1}}')).toBeUndefined();
    expect(taken('{"raw":"x","json":"\\u0041"}')).toBeUndefined();
    expect(taken('{"raw":"x","json":1.0}')).toBeUndefined();
    // The members before it not as JSON.stringify writes them, or a second `json` that JSON.parse drops.
    expect(taken('{"raw": "x","json":1}')).toBeUndefined();
    expect(taken('{"json":2,"raw":"x","json":1}')).toBeUndefined();
    // A key of digits, which JSON.parse moves ahead of the others.
    expect(taken('{"raw":"x","1":0,"json":1}')).toBeUndefined();
  });
});
