import { Option } from 'commander';
import { UsageError } from '../core/errors.js';

/** commander accumulator for repeatable options (`--schemas a --schemas b`). */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `--shutdown-grace <ms>` of record, replay and fixture: the `shutdownGraceMs` option of their API. */
export function shutdownGraceOption(): Option {
  return new Option('--shutdown-grace <ms>', 'once stopping, how long open streams and connections get to finish before they are cut, in milliseconds (default 2000)');
}

/** The --shutdown-grace value: a whole number of milliseconds, 0 or more; undefined when not given. */
export function shutdownGraceOfFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(ms)) throw new UsageError(`--shutdown-grace '${value}' is not a whole number of milliseconds (0 or more)`);
  return ms;
}
