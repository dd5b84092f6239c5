import type Database from 'better-sqlite3';
import { ID_FIELDS, MIN_ECHO_LENGTH } from './id-canonicalizer.js';

/** The id keys looked for by name (ID_FIELDS without its pointers), and any `…Cursor`. */
const ID_KEY_NAMES = ID_FIELDS.filter((spec) => !spec.startsWith('/'));
const ID_PAIR = new RegExp(`"(${ID_KEY_NAMES.join('|')}|[A-Za-z]*Cursor)"\\s*:\\s*"((?:[^"\\\\]|\\\\.){${MIN_ECHO_LENGTH},})"`, 'g');

const JSON_TEXTS_SQL = 'SELECT json FROM messages WHERE json IS NOT NULL';

/**
 * The first of the diff's two passes over a side: every string the recording uses as an id (the
 * value of an id key such as `parentId`, `leafId` or `toolCallId`, anywhere), with the key it was
 * first seen under. The second pass labels such a value wherever it appears first, so that a Pi
 * entry's `id` is canonical whether or not a `parentId` naming it came before it.
 *
 * Reads the stored JSON texts, not parsed values: a key/value scan is several times cheaper than
 * parsing, and a value it finds that is not really in an id field (an id key quoted inside a
 * string) only makes that value labelled, which costs nothing when both sides are alike.
 */
export function collectIdRoles(db: Database.Database): Map<string, string> {
  const roles = new Map<string, string>();
  for (const text of db.prepare(JSON_TEXTS_SQL).pluck().iterate() as IterableIterator<string>) {
    ID_PAIR.lastIndex = 0;
    for (let m = ID_PAIR.exec(text); m !== null; m = ID_PAIR.exec(text)) {
      const value = m[2].includes('\\') ? unescape(m[2]) : m[2];
      if (value !== undefined && !roles.has(value)) roles.set(value, m[1]);
    }
  }
  return roles;
}

function unescape(body: string): string | undefined {
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return undefined;
  }
}
