import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { protocolById } from '../protocols/catalog.js';
import type { ProtocolId } from '../protocols/protocol.js';
import { normalizerFor } from './normalize.js';
import { tooDeepToNormalize } from './request-limits.js';

/** A request body as matching sees it: its identity key, and its normalized value for miss reports. */
export interface BodyIdentity {
  /** Equal for requests that match: `empty`, `json:<canonical normalized JSON>` or `raw:<sha256>`. */
  key: string;
  /** The normalized JSON value, when the body is JSON. */
  normalized?: unknown;
}

/**
 * The parsed JSON of a body, or undefined when it is empty, not JSON, or nested deeper than
 * MAX_MATCH_DEPTH: such a body is then matched byte for byte, like any other that is not JSON.
 */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0 || !isUtf8(raw) || tooDeepToNormalize(raw)) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Identifies request bodies for one protocol: JSON bodies by their normalized form (volatile fields
 * and `--ignore` fields dropped, keys sorted), anything else byte for byte.
 */
export class BodyIdentifier {
  private readonly normalize: (value: unknown) => unknown;
  private readonly redact: ((value: unknown) => unknown) | undefined;

  constructor(protocol: ProtocolId | undefined, ignore: readonly string[]) {
    this.normalize = normalizerFor(protocol, ignore);
    const module = protocol === undefined ? undefined : protocolById(protocol);
    // Recordings keep write-only values (Pi session env) only as digests: a live body must be
    // digested the same way before it can equal the recorded one.
    this.redact = module?.redactForStorage
      ? (value) => module.redactForStorage!({ sender: 'client', carrier: 'body', value }) ?? value
      : undefined;
  }

  /** A recorded body, stored as it was (already redacted). */
  recorded(raw: Buffer | undefined): BodyIdentity {
    return this.identify(raw, false);
  }

  /** A live body, redacted as the recorder would have stored it. */
  live(raw: Buffer): BodyIdentity {
    return this.identify(raw, true);
  }

  private identify(raw: Buffer | undefined, live: boolean): BodyIdentity {
    if (raw === undefined || raw.length === 0) return { key: 'empty' };
    const value = parseJsonBody(raw);
    if (value === undefined) return { key: 'raw:' + createHash('sha256').update(raw).digest('hex') };
    const normalized = this.normalize(live && this.redact ? this.redact(value) : value);
    return { key: 'json:' + JSON.stringify(normalized), normalized };
  }
}
