import type { ProtocolId } from '../protocols/catalog.js';

/**
 * What a recording keeps and how it is judged, beyond the defaults: the options `record` takes for
 * that (`--protocol`, `--redact-header`, `--redact-query`, `--redact-field`, `--keep-secrets-matching`, `--max-body`,
 * `--schemas`). Every path that writes a recording honours them, so a secret named once is never
 * written, whichever mode recorded it.
 */
export interface RecordingRules {
  /** Force one protocol for every exchange instead of classifying. */
  protocol?: ProtocolId;
  /** More headers whose values are never stored (besides the default credentials). */
  redactHeaders?: string[];
  /** More query parameters whose values are never stored (besides DEFAULT_REDACTED_QUERY_PARAMS). */
  redactQuery?: string[];
  /** More JSON fields whose values are never stored: key names or JSON pointers (besides DEFAULT_REDACTED_FIELDS). */
  redactFields?: string[];
  /**
   * Regular expressions (as written, no flags) of credentials to store as they are: every credential
   * of a well-known format (core/credential-formats.ts) is stored redacted unless one matches it.
   */
  keepSecretsMatching?: string[];
  /** Messages larger than this are stored truncated (default 10 MiB). */
  maxBodyBytes?: number;
  /** Extra schema directories (as --schemas); AGENT_PROXY_SCHEMAS is read as well. */
  schemas?: string[];
}

/** Just the recording rules of a larger options object (a fixture's), to hand on to a recorder. */
export function recordingRulesIn(options: RecordingRules): RecordingRules {
  const { protocol, redactHeaders, redactQuery, redactFields, keepSecretsMatching, maxBodyBytes, schemas } = options;
  return { protocol, redactHeaders, redactQuery, redactFields, keepSecretsMatching, maxBodyBytes, schemas };
}
