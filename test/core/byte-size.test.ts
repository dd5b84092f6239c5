import { describe, expect, it } from 'vitest';
import { parseByteSize } from '../../src/core/byte-size.js';
import { UsageError } from '../../src/core/errors.js';

describe('parseByteSize: the one parser of every size option', () => {
  it('reads plain bytes, SI units in 1000s and IEC units in 1024s, in any case', () => {
    const sizes: Record<string, number> = {
      '1048576': 1048576,
      '512b': 512,
      '10MB': 10_000_000,
      '10mb': 10_000_000,
      '64KiB': 65536,
      '64kib': 65536,
      '2kB': 2000,
      '1.5MiB': 1572864,
      '1.1kB': 1100,
      '1GiB': 1073741824,
      '3 GB': 3_000_000_000,
      '.5KiB': 512,
    };
    for (const [value, bytes] of Object.entries(sizes)) expect(parseByteSize(value, '--max-body'), value).toBe(bytes);
  });

  it('refuses what is no positive whole number of bytes, naming the flag', () => {
    const refusals: Record<string, string> = {
      x: "--max-body 'x' is not a size",
      '10XB': "--max-body '10XB' is not a size",
      '-1MB': "--max-body '-1MB' is not a size",
      '': "--max-body '' is not a size",
      '0': "--max-body '0' is not a size: expected more than 0 bytes",
      '1.5': "--max-body '1.5' is not a whole number of bytes (1.5)",
      '99999999GiB': "--max-body '99999999GiB' is too large",
    };
    for (const [value, text] of Object.entries(refusals)) {
      expect(() => parseByteSize(value, '--max-body'), value).toThrow(UsageError);
      expect(() => parseByteSize(value, '--max-body'), value).toThrow(text);
    }
  });
});
