import { Option } from 'commander';

/**
 * `--cors on|off` of `replay` and `fixture`. No commander default, so that a command can tell a
 * flag given (refused where it means nothing, with `--stdio`) from one left out (on).
 */
export function corsOption(description: string): Option {
  return new Option('--cors <on|off>', description).choices(['on', 'off']);
}
