/** A JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `value[key]` when it is a string. */
export function stringField(value: unknown, key: string): string | undefined {
  if (!isPlainObject(value)) return undefined;
  const v = value[key];
  return typeof v === 'string' ? v : undefined;
}

/** `value[key]` when it is a finite number. */
export function numberField(value: unknown, key: string): number | undefined {
  if (!isPlainObject(value)) return undefined;
  const v = value[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}
