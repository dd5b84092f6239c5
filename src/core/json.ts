/** A parsed JSON object: not null, not an array. */
export type JsonObject = Record<string, unknown>;

/** Is this parsed JSON value an object (not null, not an array)? */
export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
