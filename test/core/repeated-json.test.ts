/**
 * RepeatedJson keeps the parsed value of a JSON text that comes again, for the messages after it to
 * share, and a schema's findings on a shared value are found once (schema-registry.ts): each caller
 * still gets its own array of them, equal to what checking a fresh value finds.
 */
import { describe, expect, it } from 'vitest';
import { isSharedJsonValue, RepeatedJson } from '../../src/core/repeated-json.js';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { OPENAI_SCHEMA_ID } from '../../src/protocols/openai/schemas.js';

/** What validate's reader does with each text: the remembered value, else a new one, told to `texts`. */
function read(texts: RepeatedJson, text: string): unknown {
  const known = texts.get(text);
  return known !== undefined ? known : texts.parsed(text, JSON.parse(text));
}

describe('RepeatedJson', () => {
  it('hands out one value for a text from its second time on, and does not remember a text seen once', () => {
    const texts = new RepeatedJson();
    const text = '{"a":[1,{"b":"c"}]}';
    const first = read(texts, text);
    const second = read(texts, text);
    const third = read(texts, text);
    expect(first).not.toBe(second);
    expect(third).toBe(second);
    expect(isSharedJsonValue(second)).toBe(true);
    expect(isSharedJsonValue(first)).toBe(false);
    expect(texts.get('{"once":1}')).toBeUndefined();
    read(texts, '{"once":1}');
    expect(texts.get('{"once":1}')).toBeUndefined();
  });

  it('does not remember a long text, nor mark a value that is no object', () => {
    const texts = new RepeatedJson();
    const long = JSON.stringify({ text: 'x'.repeat(5000) });
    for (let i = 0; i < 3; i++) read(texts, long);
    expect(texts.get(long)).toBeUndefined();
    for (let i = 0; i < 3; i++) read(texts, '"a string"');
    expect(texts.get('"a string"')).toBe('a string');
    expect(isSharedJsonValue('a string')).toBe(false);
  });
});

describe("a schema's findings on a shared value", () => {
  const registry = SchemaRegistry.load({ useEnv: false });
  const check = registry.def(OPENAI_SCHEMA_ID, 'CreateChatCompletionStreamResponse');

  it('are those of a fresh value, in an array of their own each time', () => {
    if (!check.ok) throw new Error(check.reason);
    const texts = new RepeatedJson();
    const text = JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 'not a number', model: 'm', choices: [] });
    for (let i = 0; i < 2; i++) read(texts, text);
    const shared = read(texts, text);
    expect(isSharedJsonValue(shared)).toBe(true);
    const fresh = check.validate(JSON.parse(text));
    expect(fresh.length).toBeGreaterThan(0);
    const once = check.validate(shared);
    const again = check.validate(shared);
    expect(once).toEqual(fresh);
    expect(again).toEqual(fresh);
    expect(again).not.toBe(once);
    expect(again[0]).not.toBe(once[0]);
  });
});
