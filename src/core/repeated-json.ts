import { RepeatedTexts } from './repeated-texts.js';

/** Every value RepeatedJson handed out for more than one message: never to be changed, and judged the same against a schema each time. */
const sharedValues = new WeakSet<object>();

/**
 * Is `value` a parsed JSON text that several messages share (RepeatedJson)? Then a schema's findings
 * on it are the same each time it is checked (schema-registry.ts keeps them), since checking a value
 * against a schema depends on nothing else.
 */
export function isSharedJsonValue(value: unknown): value is object {
  return typeof value === 'object' && value !== null && sharedValues.has(value);
}

/**
 * The parsed values of the JSON texts a stream repeats, so that a message whose text came before is
 * not parsed again: a stream repeats itself a lot (a chunk of the same token, a heartbeat, a status
 * frame). A text is remembered when it comes a second time (most texts of some streams never repeat,
 * a frame numbered in order, and keeping each one's value would cost the heap more than it saves).
 * A value handed back is shared by every message of that text, so it must not be changed: the
 * checkers only read the values they are given.
 */
export class RepeatedJson {
  private readonly texts = new RepeatedTexts<unknown>();

  /** The value remembered for `text`, if it came before; undefined if not (no JSON text parses to undefined). */
  get(text: string): unknown {
    return this.texts.get(text);
  }

  /** `value`, just parsed from `text`: remembered when the text comes the second time. Returns it. */
  parsed(text: string, value: unknown): unknown {
    if (this.texts.offer(text, () => value) !== undefined && typeof value === 'object' && value !== null) sharedValues.add(value);
    return value;
  }
}
