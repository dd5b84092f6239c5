import { isCompactJson } from '../core/compact-json-text.js';
import { stringifyJson } from '../core/json-text.js';

/** A message line's last member, `json` or `rawJson`, and its value's text as the line holds it. */
export interface LastMember {
  key: 'json' | 'rawJson';
  text: string;
}

/**
 * A message line's JSON as it stands on the line, when it is the last member (`json` or `rawJson`)
 * and written as stringifyJson writes its value; else undefined. An export writes a message's JSON
 * last (ndjson-export.ts): the import stores that text instead of writing the parsed value again,
 * which for a value nested 100,000 levels deep costs far more than a scan of the text. `value` is
 * the line as JSON.parse gave it: the text before the member must be what stringifyJson writes for
 * the other members, so that the text taken is the member JSON.parse kept.
 */
export function lastJsonMember(line: string, value: Record<string, unknown>): LastMember | undefined {
  const keys = Object.keys(value);
  const key = keys[keys.length - 1];
  if ((key !== 'json' && key !== 'rawJson') || !line.endsWith('}')) return undefined;
  const { [key]: _, ...rest } = value;
  const others = stringifyJson(rest)!;
  const opening = `${others.length === 2 ? '{' : `${others.slice(0, -1)},`}"${key}":`;
  if (!line.startsWith(opening)) return undefined;
  const text = line.slice(opening.length, -1);
  return isCompactJson(text) ? { key, text } : undefined;
}
