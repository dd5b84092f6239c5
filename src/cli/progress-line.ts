/**
 * How far a long read is, on a terminal: `validating 120,000 of 480,000 messages (25%)` on stderr,
 * rewritten in place with \r and cleared at the end. Only on a TTY (a pipe or a log file gets
 * nothing), and only for long reads (LONG_READ items), so short commands print exactly as before.
 * Redrawn every 1% (or every REDRAW_EVERY items when the total is unknown), never on a timer, so
 * what it writes depends only on the counts.
 */
export interface Progress {
  /** `n` more items done (default 1). */
  tick(n?: number): void;
  /** Clears the line, if one was drawn. */
  done(): void;
}

/** Where the line goes: stderr, or a stand-in with `isTTY` in tests. */
export type ProgressStream = Pick<NodeJS.WritableStream, 'write'> & { isTTY?: boolean };

export interface ProgressOptions {
  /** Whether the stream is a terminal (default: its `isTTY`). */
  isTTY?: (stream: ProgressStream) => boolean;
  /** No line for fewer items than this (default LONG_READ). */
  minimum?: number;
}

/** A read this long says how far it is. */
export const LONG_READ = 100_000;
/** Without a total, the line is redrawn every this many items. */
const REDRAW_EVERY = 10_000;

const SILENT: Progress = { tick() {}, done() {} };

export function createProgress(stream: ProgressStream, label: string, total?: number, options: ProgressOptions = {}): Progress {
  const isTTY = options.isTTY ?? ((s: ProgressStream) => s.isTTY === true);
  const minimum = options.minimum ?? LONG_READ;
  if (!isTTY(stream) || (total !== undefined && total < minimum)) return SILENT;
  const step = total === undefined ? REDRAW_EVERY : Math.max(1, Math.floor(total / 100));
  let count = 0;
  let next = Math.max(step, total === undefined ? minimum : step);
  let drawn = false;
  const number = new Intl.NumberFormat('en-US');
  return {
    tick(n = 1) {
      count += n;
      if (count < next) return;
      next = count - (count % step) + step;
      const of = total === undefined ? '' : ` of ${number.format(total)}`;
      const percent = total === undefined || total === 0 ? '' : ` (${Math.floor((Math.min(count, total) / total) * 100)}%)`;
      // \x1b[K clears what a longer previous line left to the right.
      stream.write(`\r${label} ${number.format(count)}${of}${percent}\x1b[K`);
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\r\x1b[K');
      drawn = false;
    },
  };
}

/**
 * The same line for a read that says more than a count (`diff: reading b.db… 420,000 of 1,000,000
 * messages`): the caller writes the text, redrawn at most every `everyMs` on `now`'s clock, so a
 * tight loop that reports every message costs nothing.
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

/** A read of more messages than this says how far it is (on a terminal). */
export const LONG_READ_MESSAGES = LONG_READ;

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
