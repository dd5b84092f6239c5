/**
 * One line on a terminal that says how far a long read is (`diff: reading b.db… 420,000 of
 * 1,000,000 messages`), rewritten in place and cleared when the read ends. Only on a terminal: when
 * the stream is a pipe or a file, nothing is written, so logs and CI output stay clean. Redrawn at
 * most every `everyMs` on `now`'s clock, so a tight loop that reports every message costs nothing.
 */
export interface ProgressLine {
  /** Shows `text` (one line) in place of the last one, unless the last was drawn under `everyMs` ago. */
  update(text: string): void;
  /** Clears the line, if one was drawn. */
  done(): void;
}

export interface ProgressLineOptions {
  /** Default 100 ms. */
  everyMs?: number;
  /** Default Date.now; tests pass a manual clock. */
  now?: () => number;
}

/** The stream it draws on: process.stderr, or a stand-in with `isTTY` and `write`. */
export type ProgressStream = Pick<NodeJS.WriteStream, 'write'> & { isTTY?: boolean };

/** A read of more messages than this says how far it is (on a terminal). */
export const LONG_READ_MESSAGES = 100_000;

const CLEAR_LINE = '\r\x1b[K';

export function progressLine(stream: ProgressStream = process.stderr, options: ProgressLineOptions = {}): ProgressLine {
  if (!stream.isTTY) return { update: () => undefined, done: () => undefined };
  const everyMs = options.everyMs ?? 100;
  const now = options.now ?? Date.now;
  let drawn = false;
  let last = -Infinity;
  return {
    update(text) {
      const at = now();
      if (drawn && at - last < everyMs) return;
      last = at;
      drawn = true;
      stream.write(CLEAR_LINE + text);
    },
    done() {
      if (drawn) stream.write(CLEAR_LINE);
      drawn = false;
    },
  };
}

/** `1,234,567`: counts in a progress line. */
export function groupedCount(n: number): string {
  return n.toLocaleString('en-US');
}
