import { warning, type Finding } from './finding.js';
import { REDACTED } from './redacted.js';
import { CREDENTIAL_FORMATS, type CredentialFormatId } from './credential-formats.js';

/**
 * A well-known credential (core/credential-formats.ts) in the traffic: stored redacted, and named
 * by its format and place, never by its value (not even a digest of it).
 */
export const SECRET_IN_TRAFFIC = 'secret-in-traffic';

/**
 * The warning for a credential of `format` found at `where` (`this message`, `request header
 * 'x-key'` …); `pointer`: where in the message's JSON, '' for the whole message or the exchange.
 */
export function secretInTraffic(format: CredentialFormatId, where: string, pointer = ''): Finding {
  const at = pointer === '' ? '' : ` at ${pointer}`;
  return warning(SECRET_IN_TRAFFIC, pointer, `${article(CREDENTIAL_FORMATS[format].name)} is in ${where}${at}; it was forwarded as sent and stored as ${REDACTED}`);
}

function article(name: string): string {
  return /^[AEIOU]/.test(name) ? `an ${name}` : `a ${name}`;
}
