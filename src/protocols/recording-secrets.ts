/**
 * What a protocol may do with the recording's write-only secrets (Pi session `spec.env` values):
 * register them, keep them out of what it reports, and store a digest in their place. The judge's
 * SecretTracker is the one implementation; protocols name only this, so they stay below the judge.
 */
export interface RecordingSecrets {
  /** How many values are registered; 0 means there is nothing to scrub. */
  readonly size: number;
  /** Registers the string values of an env object. */
  registerEnv(env: unknown): void;
  /** Replaces any registered value (plain or JSON-escaped) in text. */
  scrub(text: string): string;
  /** A keyed digest of a value, stored in its place (`hmac-sha256:<hex>`). */
  digest(value: string): string;
}
