import { isJsonObject } from '../../core/json.js';

/** `value[key]` when it is a string. */
export function stringField(value: unknown, key: string): string | undefined {
  if (!isJsonObject(value)) return undefined;
  const v = value[key];
  return typeof v === 'string' ? v : undefined;
}

/** `value[key]` when it is a finite number. */
export function numberField(value: unknown, key: string): number | undefined {
  if (!isJsonObject(value)) return undefined;
  const v = value[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}
