import { REDACTED } from './redacted.js';
import { CREDENTIAL_PATTERN, CREDENTIAL_PREFIX, GROUP_FORMATS, MIN_CREDENTIAL_LENGTH, pemBlockEnd, type CredentialFormatId } from './credential-formats.js';

/** One credential found in a text: its format and where it is (UTF-16 offsets; byte offsets in latin1 text). */
export interface CredentialHit {
  format: CredentialFormatId;
  start: number;
  end: number;
}

/**
 * Finds well-known credential formats (core/credential-formats.ts) in stored text and replaces
 * them, as secret scanners do, except those a `--keep-secrets-matching` pattern keeps. Text with
 * no credential costs one run of one regex and is returned as it is.
 */
export class CredentialScrubber {
  private readonly pattern = new RegExp(CREDENTIAL_PATTERN.source, CREDENTIAL_PATTERN.flags);

  /** `keep`: a credential that any of them matches (anywhere in it) is stored as it is. */
  constructor(private readonly keep: readonly RegExp[] = []) {}

  /**
   * False when `text` holds no credential, by one regex of their prefixes. JSON text of strings
   * escapes no character of a prefix, so it is false for the text when it is for every string in it.
   */
  mayHold(text: string): boolean {
    return text.length >= MIN_CREDENTIAL_LENGTH && CREDENTIAL_PREFIX.test(text);
  }

  /** The credentials in `text`, in order; none overlap. */
  find(text: string): readonly CredentialHit[] {
    if (text.length < MIN_CREDENTIAL_LENGTH || !CREDENTIAL_PREFIX.test(text)) return NONE;
    const pattern = this.pattern;
    pattern.lastIndex = 0;
    let hits: CredentialHit[] | undefined;
    // Where the next PEM END line is: -2 not looked for yet, -1 none in the rest of the text.
    const pemEnds = { at: -2 };
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      const groups = match.groups!;
      let format: CredentialFormatId | undefined;
      for (const group in groups) {
        if (groups[group] !== undefined) {
          format = GROUP_FORMATS[group];
          break;
        }
      }
      if (format === undefined) continue;
      const start = match.index;
      const end = format === 'private-key' ? pemBlockEnd(text, start + match[0].length, pemEnds) : start + match[0].length;
      pattern.lastIndex = end;
      if (this.keeps(text.slice(start, end))) continue;
      (hits ??= []).push({ format, start, end });
    }
    return hits ?? NONE;
  }

  /** `text` with each hit replaced by `marker`. */
  replace(text: string, hits: readonly CredentialHit[], marker: string = REDACTED): string {
    if (hits.length === 0) return text;
    let out = '';
    let copied = 0;
    for (const hit of hits) {
      out += text.slice(copied, hit.start) + marker;
      copied = hit.end;
    }
    return out + text.slice(copied);
  }

  /** Text as stored: the input itself when it holds no credential. */
  scrub(text: string, marker: string = REDACTED): string {
    return this.replace(text, this.find(text), marker);
  }

  /**
   * Bytes as stored, which may not be text at all: scanned as latin1, where every byte is one
   * character, so offsets are byte offsets and the bytes around a hit are kept exactly.
   * `sameLength`: a binary frame (protobuf) whose framing counts bytes keeps its length: the hit
   * becomes the marker padded with `*`.
   */
  scrubBytes(bytes: Buffer, sameLength = false): { bytes: Buffer; hits: readonly CredentialHit[] } {
    if (bytes.length < MIN_CREDENTIAL_LENGTH) return { bytes, hits: NONE };
    const text = bytes.toString('latin1');
    const hits = this.find(text);
    if (hits.length === 0) return { bytes, hits };
    const parts: Buffer[] = [];
    let copied = 0;
    for (const hit of hits) {
      const length = hit.end - hit.start;
      const marker = sameLength ? (REDACTED + '*'.repeat(Math.max(0, length - REDACTED.length))).slice(0, length) : REDACTED;
      parts.push(bytes.subarray(copied, hit.start), Buffer.from(marker, 'latin1'));
      copied = hit.end;
    }
    parts.push(bytes.subarray(copied));
    return { bytes: Buffer.concat(parts), hits };
  }

  private keeps(credential: string): boolean {
    for (const pattern of this.keep) if (pattern.test(credential)) return true;
    return false;
  }
}

const NONE: readonly CredentialHit[] = Object.freeze([]) as readonly CredentialHit[];

/**
 * `--keep-secrets-matching` patterns compiled, each as written (no flags): a pattern that does not
 * compile is named in the error's message.
 */
export function keepPatterns(sources: readonly string[] | undefined): RegExp[] {
  return (sources ?? []).map((source) => {
    try {
      return new RegExp(source);
    } catch (error) {
      throw new SyntaxError(`--keep-secrets-matching ${JSON.stringify(source)} is not a valid regular expression: ${(error as Error).message.replace(/^Invalid regular expression: /, '')}`);
    }
  });
}
