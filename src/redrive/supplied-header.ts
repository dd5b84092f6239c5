import { UsageError } from '../core/errors.js';

/** A header given at redrive time (`--header 'Name: value'`): sent in place of the recorded one, and never stored. */
export interface SuppliedHeader {
  name: string;
  value: string;
}

/** RFC 9110's token: what a header name may be made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** `Name: value`, as curl's -H takes it; anything else is a usage error (exit 2) naming the flag, never the value. */
export function parseSuppliedHeader(text: string): SuppliedHeader {
  const colon = text.indexOf(':');
  const name = colon < 0 ? '' : text.slice(0, colon).trim();
  if (!TOKEN.test(name)) throw new UsageError("--header takes 'Name: value' (a header name, a colon, its value)");
  const value = text.slice(colon + 1).trim();
  if (/[\r\n\0]/.test(value)) throw new UsageError(`--header ${name}: the value holds a line break or NUL`);
  return { name, value };
}
