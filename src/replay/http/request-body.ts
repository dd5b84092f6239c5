import { isUtf8 } from 'node:buffer';
import { tryParseJson } from '../../core/json.js';
import { lazyCrypto } from '../../core/lazy-crypto.js';
import type { ProtocolId } from '../../protocols/catalog.js';
import { FieldSpecs } from '../../core/field-specs.js';
import { normalizerFor, writeOnlyFieldsOf } from '../../match/normalize.js';
import { RedactionMask } from '../../match/redacted-values.js';
import { tooDeepToNormalize } from './request-limits.js';

/** A request body as matching sees it: its identity key, and its normalized value for miss reports. */
export interface BodyIdentity {
  /** Equal for requests that match: `empty`, `json:<canonical normalized JSON>` or `raw:<sha256>`. */
  key: string;
  /** The normalized JSON value, when the body is JSON. */
  normalized?: unknown;
  /** How many values the mask replaced (redacted in the recording, so any live value matches). */
  masked: number;
}

/**
 * The parsed JSON of a body, or undefined when it is empty, not JSON, or nested deeper than
 * MAX_MATCH_DEPTH: such a body is then matched byte for byte, like any other that is not JSON.
 */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0 || !isUtf8(raw) || tooDeepToNormalize(raw)) return undefined;
  return tryParseJson(raw.toString('utf8'));
}

const NO_MASK = new RedactionMask();

/**
 * Identifies request bodies for one protocol: JSON bodies by their normalized form (volatile fields
 * and `--ignore` fields dropped, keys sorted), anything else byte for byte. Values the recording
 * redacted are masked on both sides first (see redacted-values.ts).
 */
export class BodyIdentifier {
  private readonly normalize: (value: unknown) => unknown;
  private readonly writeOnly: FieldSpecs;

  constructor(protocol: ProtocolId | undefined, ignore: readonly string[]) {
    this.normalize = normalizerFor(protocol, ignore);
    this.writeOnly = new FieldSpecs(writeOnlyFieldsOf(protocol));
  }

  /** Adds the places a recorded body has redacted values to `mask`. */
  addRedacted(mask: RedactionMask, raw: Buffer | undefined): void {
    if (raw !== undefined) mask.addRecorded(parseJsonBody(raw), this.writeOnly);
  }

  /** A recorded body (stored redacted), or a live one, with the values at `mask`'s places replaced. */
  identify(raw: Buffer | undefined, mask: RedactionMask = NO_MASK): BodyIdentity {
    if (raw === undefined || raw.length === 0) return { key: 'empty', masked: 0 };
    const value = parseJsonBody(raw);
    if (value === undefined) return { key: 'raw:' + lazyCrypto().createHash('sha256').update(raw).digest('hex'), masked: 0 };
    const { value: masked, masked: count } = mask.apply(value);
    const normalized = this.normalize(masked);
    return { key: 'json:' + JSON.stringify(normalized), normalized, masked: count };
  }
}
