import { stringifyJson } from '../core/json-text.js';
import { REDACTED_JSON } from '../core/redacted.js';
import { sseDataOffsets } from '../framing/sse-data-offsets.js';
import { DEFAULT_REDACTED_FIELDS, FieldRules } from './field-rules.js';
import { secretFieldSpans, spliceSpans, type Span } from './json-field-spans.js';
import { bindingOfChannel } from '../protocols/catalog.js';

export { DEFAULT_REDACTED_FIELDS } from './field-rules.js';

/** A message as it may be stored. */
export interface StorableForm {
  value: unknown;
  raw: Buffer;
}

/**
 * Replaces the values of secret JSON fields (DEFAULT_REDACTED_FIELDS plus `--redact-field`) with
 * `"<redacted>"` in what is stored: the parsed value and the raw bytes alike. The raw bytes are
 * changed only inside the replaced values, so the rest (spacing, SSE framing, the line's end) stays
 * as it travelled, and the result is still valid JSON. Runs in the recording pipeline, after the
 * message was forwarded and judged on its real value.
 */
export class FieldRedactor {
  private readonly rules: FieldRules;

  constructor(extra: readonly string[] = []) {
    this.rules = new FieldRules([...DEFAULT_REDACTED_FIELDS, ...extra]);
  }

  /**
   * The stored form of a parsed message, or undefined when it has no secret field.
   * `text`: the JSON text the value was parsed from, which `raw` holds (as all of it, its start, or
   * the data lines of an SSE block); absent when the value was decoded some other way (protobuf).
   */
  redact(value: unknown, raw: Buffer, text: string | undefined, channel?: string | null): StorableForm | undefined {
    // A walk of the parsed value decides; the text is scanned only when there is something to replace.
    if (!this.rules.finds(value)) return undefined;
    const source = text ?? stringifyJson(value)!;
    const spans = secretFieldSpans(source, this.rules);
    if (spans.length === 0) return undefined;
    const redactedText = spliceSpans(source, spans);
    const stored: unknown = JSON.parse(redactedText);
    if (text !== undefined) return { value: stored, raw: spliceRaw(raw, text, spans) ?? Buffer.from(redactedText) };
    // A frame of a binary encoding (AG-UI's protobuf) is re-encoded from the redacted value.
    const binding = bindingOfChannel(channel);
    if (binding !== undefined) return { value: stored, raw: binding.encodeFrame(stored) ?? Buffer.from(redactedText) };
    return { value: stored, raw: Buffer.from(redactedText) };
  }

  /** A parsed value with its secret fields replaced (for what is printed); the input when it has none. */
  redactValue(value: unknown): unknown {
    if (!this.rules.finds(value)) return value;
    const text = stringifyJson(value)!;
    return JSON.parse(spliceSpans(text, secretFieldSpans(text, this.rules)));
  }

  /**
   * The kept start of a message stored truncated (never parsed): secret values in it replaced, or
   * undefined when none. The JSON is taken to start at the first `{` or `[` (after an SSE block's
   * `data:`), and to run to the end of what was kept.
   */
  redactTruncated(raw: Buffer): Buffer | undefined {
    const text = raw.toString('utf8');
    const start = text.search(/[{[]/);
    if (start < 0) return undefined;
    const spans = secretFieldSpans(text, this.rules, start);
    return spans.length === 0 ? undefined : spliceRaw(raw, text, spans);
  }
}

/**
 * `raw` with the spans of `text` replaced, where raw holds text as its start (a body, a line) or as an
 * SSE block's data lines. Only the bytes of the spans change. Undefined when raw does not hold text.
 */
function spliceRaw(raw: Buffer, text: string, spans: readonly Span[]): Buffer | undefined {
  const rawText = raw.toString('utf8');
  let rawSpans: Span[] | readonly Span[] = spans;
  if (!rawText.startsWith(text)) {
    const toRaw = sseDataOffsets(rawText, text);
    if (!toRaw) return undefined;
    const mapped: Span[] = [];
    for (const [start, end] of spans) {
      const from = toRaw(start);
      const to = toRaw(end - 1);
      if (from === undefined || to === undefined) return undefined;
      mapped.push([from, to + 1]);
    }
    rawSpans = mapped;
  }
  // Bytes outside the spans are copied, not re-encoded. Offsets are counted in UTF-8 bytes, which holds
  // while the text before a span decoded cleanly; when it did not (invalid bytes), the text is re-encoded.
  const replacement = Buffer.from(REDACTED_JSON);
  const parts: Buffer[] = [];
  let char = 0;
  let byte = 0;
  for (const [start, end] of rawSpans) {
    const before = Buffer.byteLength(rawText.slice(char, start));
    const inside = rawText.slice(start, end);
    const length = Buffer.byteLength(inside);
    if (raw.toString('utf8', byte + before, byte + before + length) !== inside) return Buffer.from(spliceSpans(rawText, rawSpans));
    parts.push(raw.subarray(byte, byte + before), replacement);
    byte += before + length;
    char = end;
  }
  parts.push(raw.subarray(byte));
  return Buffer.concat(parts);
}
