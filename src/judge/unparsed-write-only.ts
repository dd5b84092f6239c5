import { FieldRules } from './field-rules.js';
import { secretFieldSpans, spliceSpans } from './json-field-spans.js';

/**
 * A protocol's write-only request fields (Pi session `spec.env` values) in a JSON message that was
 * not parsed: too costly to parse, over --max-body, or broken. Parsed, such values are replaced by
 * the protocol (`redactForStorage`) and tracked for leaks by its checker; unparsed, neither runs. So
 * the text is scanned for them: each value found is handed to `found` (to be tracked for leaks) and
 * replaced by `"<redacted>"` in what is stored.
 */
export class UnparsedWriteOnly {
  private readonly rules: FieldRules;

  constructor(pointers: readonly string[]) {
    this.rules = new FieldRules(pointers);
  }

  /** The bytes to store, or undefined when no write-only value is in them. Only text bodies are scanned. */
  redact(raw: Buffer, found: (key: string, value: unknown) => void): Buffer | undefined {
    const text = raw.toString('utf8');
    const start = text.search(/[{[]/);
    if (start < 0) return undefined;
    const keys: string[] = [];
    const spans = secretFieldSpans(text, this.rules, start, keys);
    if (spans.length === 0) return undefined;
    spans.forEach(([from, to], i) => {
      try {
        found(keys[i], JSON.parse(text.slice(from, to)));
      } catch {
        // Cut off by the end of what was kept, or not JSON: replaced all the same, not tracked.
      }
    });
    return Buffer.from(spliceSpans(text, spans));
  }
}
