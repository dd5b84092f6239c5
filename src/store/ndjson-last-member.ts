import { isCompactJson } from '../core/compact-json-text.js';
import { stringifyJson } from '../core/json-text.js';

/** A message line's last member, `json` or `rawJson`, and its value's text as stringifyJson writes it. */
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

/**
 * The text stringifyJson writes for a message line's last member, `json` or `rawJson` (undefined when
 * the line ends with another): JSON.stringify's own for most values, which costs less than finding
 * the member on the line and checking it is in that form; from the line (lastJsonMember) for a value
 * too deep for it; else undefined, to be written again by stringifyJson's loop.
 */
export function lastMemberText(line: string, value: Record<string, unknown>): LastMember | undefined {
  const keys = Object.keys(value);
  const key = keys[keys.length - 1];
  if (key !== 'json' && key !== 'rawJson') return undefined;
  try {
    return { key, text: JSON.stringify(value[key]) };
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
  }
  return lastJsonMember(line, value);
}
