import { stringifyJson } from '../core/json-text.js';
import { REDACTED_IN_QUERY } from '../core/redacted.js';
import { CredentialScrubber } from '../core/credential-scrubber.js';
import { FieldRedactor } from '../judge/field-redaction.js';
import { QueryRedactor } from '../judge/query-redaction.js';
import type { ReplayMiss } from './replay-context.js';

const queries = new QueryRedactor();
const fields = new FieldRedactor();
const credentials = new CredentialScrubber();

/**
 * A live request as a miss report shows it (printed, returned in the 404): secret query parameters,
 * JSON fields and well-known credentials replaced as the recorder would store them, so a miss never
 * prints a credential.
 */
export function reportedRequest(request: ReplayMiss['request']): ReplayMiss['request'] {
  const query = credentials.scrub(queries.redact(request.query), REDACTED_IN_QUERY);
  const body = request.body === undefined ? undefined : typeof request.body === 'string' ? redactedText(request.body) : withoutCredentials(fields.redactValue(request.body));
  return query === request.query && body === request.body ? request : { ...request, query, ...(body === undefined ? {} : { body }) };
}

/**
 * A body echoed as text: the start of one too long to quote whole, or one that is not JSON. Its JSON
 * (from the first `{` or `[` to where the quote ends) is scanned for secret fields as a truncated
 * message is when stored.
 */
export function redactedText(text: string): string {
  const redacted = fields.redactTruncated(Buffer.from(text));
  return credentials.scrub(redacted === undefined ? text : redacted.toString('utf8'));
}

/** A parsed body with its well-known credentials replaced (the same value when it holds none). */
function withoutCredentials(value: unknown): unknown {
  const text = stringifyJson(value);
  if (text === undefined) return value;
  const scrubbed = credentials.scrub(text);
  return scrubbed === text ? value : JSON.parse(scrubbed);
}
