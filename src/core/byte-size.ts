import { UsageError } from './errors.js';

/**
 * Bytes per unit, lower-cased. SI units are powers of 1000 (`kB`, `MB`, `GB`, as disks and
 * networks count), IEC units powers of 1024 (`KiB`, `MiB`, `GiB`); `B` or no unit is bytes.
 */
const UNITS: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

const SIZE = /^(\d+(?:\.\d+)?|\.\d+)\s*([a-z]*)$/i;

/** What a refusal says a size looks like. */
export const SIZE_FORM = 'expected bytes, or a number with a unit (kB, MB, GB count in 1000s; KiB, MiB, GiB in 1024s), e.g. 10MB or 64KiB';

/**
 * A size option's value (`--max-body 10MB`, `64KiB`, `1.5MiB`, `1048576`), case-insensitive, as a
 * positive whole number of bytes. `flag` names the option in the one-line refusal.
 */
export function parseByteSize(value: string, flag: string): number {
  const match = SIZE.exec(value.trim());
  const unit = match ? UNITS[match[2].toLowerCase()] : undefined;
  if (!match || unit === undefined) throw new UsageError(`${flag} '${value}' is not a size: ${SIZE_FORM}`);
  const exact = Number(match[1]) * unit;
  // 1.1kB is 1100.0000000000002 in floating point: a hair off a whole number is that number.
  const bytes = Math.round(exact);
  if (Math.abs(exact - bytes) > 1e-6) throw new UsageError(`${flag} '${value}' is not a whole number of bytes (${exact})`);
  if (bytes <= 0) throw new UsageError(`${flag} '${value}' is not a size: expected more than 0 bytes`);
  if (!Number.isSafeInteger(bytes)) throw new UsageError(`${flag} '${value}' is too large`);
  return bytes;
}
