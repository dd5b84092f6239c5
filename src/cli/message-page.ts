import { UsageError } from '../core/errors.js';

/** `show --exchange`'s `--offset`/`--limit`: which of an exchange's messages to list. */
export interface MessagePage {
  /** Messages skipped from the start. */
  offset: number;
  /** At most this many listed; undefined for all the rest. */
  limit?: number;
}

/** Checks the flags' values; undefined when neither was given. */
export function messagePageOf(flags: { offset?: string; limit?: string; exchange?: string }): MessagePage | undefined {
  if (flags.offset === undefined && flags.limit === undefined) return undefined;
  if (flags.exchange === undefined) throw new UsageError(`${flags.limit !== undefined ? '--limit' : '--offset'} pages the messages of one exchange; it goes with --exchange <id>`);
  const offset = flags.offset === undefined ? 0 : wholeNumber(flags.offset);
  if (offset === undefined) throw new UsageError(`--offset '${flags.offset}' is not a number of messages to skip (0 or more)`);
  const limit = flags.limit === undefined ? undefined : wholeNumber(flags.limit);
  if (limit === 0 || (flags.limit !== undefined && limit === undefined)) throw new UsageError(`--limit '${flags.limit}' is not a number of messages to list (1 or more)`);
  return { offset, limit };
}

/**
 * Which of an exchange's `total` messages the page lists: `skip` of them first, then at most `count`,
 * and the line that says what was cut (undefined when nothing was). From the count alone, so that
 * the messages can be read a page at a time.
 */
export function pageRange(total: number, page: MessagePage | undefined, exchange: number): { skip: number; count: number; cut?: { from: number; to: number; of: number } } {
  if (page === undefined) return { skip: 0, count: total };
  if (page.offset > 0 && page.offset >= total) {
    throw new UsageError(`--offset ${page.offset} is past the last message of exchange ${exchange}, which has ${total}`);
  }
  const count = Math.min(total - page.offset, page.limit ?? Infinity);
  if (count === total) return { skip: 0, count };
  return { skip: page.offset, count, cut: { from: page.offset + 1, to: page.offset + count, of: total } };
}

/** `showing messages 3–5 of 10`. */
export function cutText(cut: { from: number; to: number; of: number }): string {
  return `showing messages ${cut.from}–${cut.to} of ${cut.of}`;
}

function wholeNumber(value: string): number | undefined {
  if (!/^\d+$/.test(value.trim())) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : undefined;
}
