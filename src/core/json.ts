/** A parsed JSON object: not null, not an array. */
export type JsonObject = Record<string, unknown>;

/** Is this parsed JSON value an object (not null, not an array)? */
export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The value a JSON text stands for; undefined when the text is not JSON. */
export function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
