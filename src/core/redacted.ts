import { count as plural } from './plural.js';

/**
 * What a recording stores in place of a secret: a header value, a JSON field, a query parameter's
 * value. A stored value that is exactly this marker stands for "some value that was not kept", so
 * replay lets it match any live value.
 */
export const REDACTED = '<redacted>';

const KEYED_DIGEST = /^hmac-sha256:[0-9a-f]{64}$/;

/**
 * True for a string that is already what the store keeps instead of a secret: the marker, or a keyed
 * digest (a Pi session env value, SecretTracker.digest). Field redaction leaves such values as they are.
 */
export function isStoredRedaction(value: string): boolean {
  return value === REDACTED || (value.length === 76 && KEYED_DIGEST.test(value));
}

/** The marker as a query parameter value: `<redacted>` percent-encoded, so the URL stays valid and decodes to REDACTED. */
export const REDACTED_IN_QUERY = '%3Credacted%3E';

/** The marker as it appears in JSON text (a string literal). */
export const REDACTED_JSON = JSON.stringify(REDACTED);

/**
 * The form secret names are compared in: lower case, without `-` and `_`. So `apiKey`, `api_key`,
 * `API-KEY` and `apikey` are one name.
 */
export function secretNameKey(name: string): string {
  return name.toLowerCase().replace(/[-_]/g, '');
}

/** How replay's served lines say that live values matched redacted recorded ones: `2 redacted values matched any`. */
export function redactedMatched(count: number): string {
  return `${plural(count, 'redacted value')} matched any`;
}
