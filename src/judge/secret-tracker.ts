import { lazyCrypto } from '../core/lazy-crypto.js';
import type { Finding } from '../core/finding.js';
import type { RecordingSecrets } from '../protocols/recording-secrets.js';
import { SECRET_IN_TRAFFIC } from '../core/secret-in-traffic.js';
import { findString } from '../core/find-string.js';

interface Secret {
  key: string;
  value: string;
  /** The value as it appears inside a JSON string literal. */
  escaped: string;
}

/** Shorter values would match by accident (e.g. "1", "true"); they are still never stored, only not scanned. */
const MIN_SCANNABLE_LENGTH = 4;

/**
 * A value that is also a JSON literal or number (`"true"`, `"null"`, `"8080"`) matches the syntax of
 * every message, not just its strings (`"ok":true`, `"maxBlobs":256`), and replacing it in JSON text
 * would leave a document that no longer parses. Such a value is never scanned for.
 */
const JSON_LITERAL = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)$/;

const REDACTED = '<redacted>';
const REDACTED_BYTES = Buffer.from(REDACTED);

/** A write-only value seen in a server message. */
export const SECRET_LEAK = 'secret-leak';

/**
 * Rules a recording cannot judge again: the secret they found is stored scrubbed (a leaked env
 * value; a well-known credential, store/stored-credentials.ts). Reading a recording again keeps
 * their stored findings instead.
 */
export const NOT_REDERIVABLE: ReadonlySet<string> = new Set([SECRET_LEAK, SECRET_IN_TRAFFIC]);

/**
 * Holds write-only secrets (Pi session `spec.env` values) for the length of a recording and
 * finds them if they come back from the server. Findings name the key, never the value.
 */
export class SecretTracker implements RecordingSecrets {
  private readonly secrets = new Map<string, Secret>();
  /**
   * The key of `digest`: random, made for this tracker (one recording session) and never written
   * anywhere, so a stored digest cannot be reversed by hashing guesses, not even of a short value.
   * Made at the first digest: a tracker that digests nothing (every `validate`) loads no node:crypto.
   */
  private digestKey: Buffer | undefined;

  get size(): number {
    return this.secrets.size;
  }

  /** Registers the string values of an env object. */
  registerEnv(env: unknown): void {
    if (env === null || typeof env !== 'object' || Array.isArray(env)) return;
    for (const [key, value] of Object.entries(env as Record<string, unknown>)) {
      if (typeof value === 'string') this.register(key, value);
    }
  }

  register(key: string, value: string): void {
    // Too short, or JSON syntax itself (`true`, `8080`): either would be found in messages by accident.
    if (value.length < MIN_SCANNABLE_LENGTH || JSON_LITERAL.test(value)) return;
    this.secrets.set(value, { key, value, escaped: JSON.stringify(value).slice(1, -1) });
  }

  /** Error findings, one per leaked key, for a message the server sent. */
  scan(value: unknown, text?: string): Finding[] {
    if (this.secrets.size === 0) return [];
    const findings: Finding[] = [];
    for (const secret of this.secrets.values()) {
      // Cheap pre-check on the wire text; the decision is made on the parsed strings, so a value
      // that happens to look like JSON syntax ("true", "8080") is not found in numbers or literals.
      if (text !== undefined && !text.includes(secret.value) && !text.includes(secret.escaped)) continue;
      const pointer = value === undefined ? (text?.includes(secret.value) ? '' : undefined) : findString(value, secret.value);
      if (pointer === undefined) continue;
      findings.push({
        rule: SECRET_LEAK,
        severity: 'error',
        pointer: pointer ?? '',
        message: `the value of write-only env key '${secret.key}' appears in a server message`,
      });
    }
    return findings;
  }

  /** Replaces any secret value (plain or JSON-escaped) in text; used on everything that prints or stores. */
  scrub(text: string): string {
    if (this.secrets.size === 0) return text;
    let out = text;
    for (const secret of this.secrets.values()) {
      if (out.includes(secret.value)) out = out.split(secret.value).join(REDACTED);
      if (secret.escaped !== secret.value && out.includes(secret.escaped)) out = out.split(secret.escaped).join(REDACTED);
    }
    return out;
  }

  /**
   * A copy of a parsed value with every secret replaced inside its strings and keys; the input when
   * none occurs. Walks with its own stack: a peer decides how deep the value nests.
   */
  scrubValue(value: unknown): unknown {
    if (this.secrets.size === 0) return value;
    if (typeof value === 'string') return this.scrub(value);
    if (value === null || typeof value !== 'object') return value;
    const stack: CopyFrame[] = [copyFrame(value)];
    let done: unknown;
    for (;;) {
      const frame = stack[stack.length - 1];
      const size = frame.keys ? frame.keys.length : (frame.source as unknown[]).length;
      if (frame.next >= size) {
        stack.pop();
        done = frame.changed ? frame.copy : frame.source;
        if (stack.length === 0) return done;
        place(stack[stack.length - 1], done);
        continue;
      }
      const i = frame.next++;
      const key = frame.keys ? frame.keys[i] : i;
      const item = (frame.source as Record<string | number, unknown>)[key];
      if (item !== null && typeof item === 'object') {
        frame.pendingKey = typeof key === 'string' ? this.scrub(key) : key;
        if (frame.pendingKey !== key) frame.changed = true;
        stack.push(copyFrame(item));
        continue;
      }
      const scrubbedKey = typeof key === 'string' ? this.scrub(key) : key;
      const scrubbed = typeof item === 'string' ? this.scrub(item) : item;
      if (scrubbedKey !== key || scrubbed !== item) frame.changed = true;
      (frame.copy as Record<string | number, unknown>)[scrubbedKey] = scrubbed;
    }
  }

  /** The same for raw bytes, which may not be UTF-8 text at all. Returns the input when nothing matched. */
  scrubBytes(bytes: Buffer): Buffer {
    if (this.secrets.size === 0) return bytes;
    let out = bytes;
    for (const secret of this.secrets.values()) {
      for (const form of secret.escaped === secret.value ? [secret.value] : [secret.value, secret.escaped]) {
        const needle = Buffer.from(form, 'utf8');
        let at = out.indexOf(needle);
        if (at < 0) continue;
        const parts: Buffer[] = [];
        let from = 0;
        while (at >= 0) {
          parts.push(out.subarray(from, at), REDACTED_BYTES);
          from = at + needle.length;
          at = out.indexOf(needle, from);
        }
        parts.push(out.subarray(from));
        out = Buffer.concat(parts);
      }
    }
    return out;
  }

  /**
   * A keyed digest of a secret value (HMAC-SHA256 under this tracker's key), safe to store in place
   * of it: equal values within one recording session get equal digests, and nothing else can be
   * learnt from it. Not comparable across sessions: each has its own key.
   */
  digest(value: string): string {
    const crypto = lazyCrypto();
    this.digestKey ??= crypto.randomBytes(32);
    return 'hmac-sha256:' + crypto.createHmac('sha256', this.digestKey).update(value).digest('hex');
  }
}

/** An array or object being copied by scrubValue: its keys (objects), how far it got, and the copy. */
interface CopyFrame {
  source: object;
  keys?: string[];
  next: number;
  copy: unknown[] | Record<string, unknown>;
  changed: boolean;
  /** The (scrubbed) key under which the child being copied goes. */
  pendingKey?: string | number;
}

function copyFrame(source: object): CopyFrame {
  const isArray = Array.isArray(source);
  return { source, keys: isArray ? undefined : Object.keys(source), next: 0, copy: isArray ? new Array<unknown>(source.length) : {}, changed: false };
}

/** Puts a finished child's copy (or the child itself, unchanged) into its parent's copy. */
function place(parent: CopyFrame, child: unknown): void {
  const original = (parent.source as Record<string | number, unknown>)[parent.keys ? parent.keys[parent.next - 1] : parent.next - 1];
  if (child !== original) parent.changed = true;
  (parent.copy as Record<string | number, unknown>)[parent.pendingKey!] = child;
}
