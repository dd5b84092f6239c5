import { readFileSync } from 'node:fs';
import { UsageError } from '../core/errors.js';
import { isStoredRedaction } from '../core/redacted.js';
import { formatPointer } from '../core/field-specs.js';
import type { ScriptExchange, ScriptMessage } from '../replay/replay-script.js';

/** A field of a recorded client message that the recording redacted: where, and in which exchange. */
export interface RedactedField {
  exchangeId: number;
  /** JSON pointer within the message. */
  pointer: string;
}

/**
 * Values given at redrive time (`--redacted-values <file>`) for the JSON fields the recording
 * redacted in what the client sent (an API key in a body, a Pi session `env` value): each put where
 * the recording has `<redacted>` or a keyed digest, in what redrive sends, and redacted again in the
 * new recording. A field is named as `--ignore` names one: a JSON pointer (`/spec/env/API_KEY`) or a
 * key name (`API_KEY`: that key at any depth); a pointer wins over a key name.
 */
export class RedactedValues {
  private constructor(
    private readonly values: ReadonlyMap<string, string>,
    /** The file they came from, for messages. */
    readonly source: string | undefined,
  ) {}

  static readonly NONE = new RedactedValues(new Map(), undefined);

  /**
   * Reads `FIELD=value` lines (an env file): `#` comments and blank lines skipped, the value taken
   * as written after the first `=`, one pair of surrounding quotes removed. A malformed line is a
   * usage error naming its number, never its value.
   */
  static read(file: string): RedactedValues {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageError(`--redacted-values ${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    return RedactedValues.parse(text, file);
  }

  static parse(text: string, file: string): RedactedValues {
    const values = new Map<string, string>();
    for (const [index, line] of text.split(/\r?\n/).entries()) {
      const trimmed = line.trim();
      if (trimmed === '' || trimmed.startsWith('#')) continue;
      const equals = trimmed.indexOf('=');
      const field = equals < 0 ? '' : trimmed.slice(0, equals).trim();
      if (field === '' || (!field.startsWith('/') && field.includes('/'))) {
        throw new UsageError(`--redacted-values ${file}: line ${index + 1} is not FIELD=value (a key name or a JSON pointer, '=', the value)`);
      }
      values.set(field, unquoted(trimmed.slice(equals + 1).trim()));
    }
    return new RedactedValues(values, file);
  }

  /** The fields named, as the recorder's `--redact-field` takes them: what the new recording redacts again. */
  get fields(): string[] {
    return [...this.values.keys()];
  }

  /** The value given for the field at `path`: by its pointer, else by its key. */
  private valueFor(path: readonly string[]): string | undefined {
    return this.values.get(formatPointer(path)) ?? (path.length > 0 ? this.values.get(path[path.length - 1]) : undefined);
  }

  /**
   * `exchanges` with the given values in place of the redacted fields of their client messages, and
   * the redacted fields no value was given for.
   */
  fill(exchanges: readonly ScriptExchange[]): { exchanges: ScriptExchange[]; missing: RedactedField[] } {
    const missing: RedactedField[] = [];
    const filled = exchanges.map((exchange) => {
      let changed = false;
      const messages = exchange.messages.map((message) => {
        if (message.sender !== 'client' || message.json === undefined || message.json === null || typeof message.json !== 'object') return message;
        const found: { path: string[]; marker: string; value: string | undefined }[] = [];
        collect(message.json, [], (path, marker) => found.push({ path, marker, value: this.valueFor(path) }));
        for (const f of found) if (f.value === undefined) missing.push({ exchangeId: exchange.id, pointer: formatPointer(f.path) });
        if (found.length === 0 || found.some((f) => f.value === undefined)) return message;
        changed = true;
        return filledMessage(message, found as { path: string[]; marker: string; value: string }[]);
      });
      return changed ? { ...exchange, messages } : exchange;
    });
    return { exchanges: filled, missing };
  }
}

/** The redacted string values of `value`, in document order (the order JSON.parse keeps keys in). */
function collect(value: unknown, path: string[], found: (path: string[], marker: string) => void): void {
  if (typeof value === 'string') {
    if (isStoredRedaction(value)) found(path, value);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => collect(v, [...path, String(i)], found));
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) collect(v, [...path, k], found);
  }
}

/**
 * The message with the values in place: each marker's JSON token replaced in the raw bytes, in turn,
 * so every other byte stays as recorded; where the tokens cannot be found in order (a key JSON.parse
 * reorders), the value re-encoded.
 */
function filledMessage(message: ScriptMessage, found: readonly { path: string[]; marker: string; value: string }[]): ScriptMessage {
  const json = structuredClone(message.json);
  for (const f of found) setAt(json, f.path, f.value);
  const text = message.raw.toString('latin1');
  let out = '';
  let from = 0;
  for (const f of found) {
    const token = latin1Json(f.marker);
    const at = text.indexOf(token, from);
    if (at < 0) return { ...message, raw: Buffer.from(JSON.stringify(json), 'utf8'), json };
    out += text.slice(from, at) + latin1Json(f.value);
    from = at + token.length;
  }
  return { ...message, raw: Buffer.from(out + text.slice(from), 'latin1'), json };
}

function setAt(root: unknown, path: readonly string[], value: string): void {
  let node = root as Record<string, unknown>;
  for (const segment of path.slice(0, -1)) node = node[segment] as Record<string, unknown>;
  node[path[path.length - 1]] = value;
}

function latin1Json(value: string): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('latin1');
}

function unquoted(value: string): string {
  return value.length >= 2 && (value[0] === '"' || value[0] === "'") && value[value.length - 1] === value[0] ? value.slice(1, -1) : value;
}

/** The CLI's one line for the redacted fields no value was given for (exit 2, before anything is sent). */
export function missingValuesMessage(missing: readonly RedactedField[], file: string | undefined): string {
  const fields = [...new Set(missing.map((m) => m.pointer))];
  const where = [...new Set(missing.map((m) => m.exchangeId))].join(', ');
  const named = fields.length > 3 ? `${fields.slice(0, 3).join(', ')} and ${fields.length - 3} more` : fields.join(', ');
  return `the recording redacted ${named} (exchange ${where}) and no value is given for ${fields.length > 1 ? 'them' : 'it'}: give ${fields.length > 1 ? 'each' : 'it'} as FIELD=value in ${file ?? 'a --redacted-values file'}`;
}

