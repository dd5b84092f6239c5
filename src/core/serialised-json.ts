/**
 * A value whose JSON text may be at hand without the value, and the value made only when something
 * reads it. An exchange's headers travel so from capture to the recording worker and into the store
 * (net/headers.ts, HeaderPairs): the store writes the text, and only a checker that asks for a
 * header makes the object.
 */
export abstract class SerialisedJson<T> {
  /** `JSON.stringify` of the value, byte for byte: the store keeps it as it is. */
  abstract get text(): string;
  /** The value, made on first read. */
  abstract get value(): T;

  /** Serialised elsewhere as the value itself: the same text. */
  toJSON(): T {
    return this.value;
  }
}

/** The value of something given either way. */
export function parsedValue<T>(given: T | SerialisedJson<T>): T {
  return given instanceof SerialisedJson ? given.value : given;
}

/** The JSON text of something given either way; a SerialisedJson as its text, without serialising again. */
export function jsonTextOf(given: unknown): string {
  return given instanceof SerialisedJson ? given.text : JSON.stringify(given);
}
