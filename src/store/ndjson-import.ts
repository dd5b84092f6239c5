import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { InputError } from '../core/errors.js';
import { jsonParseCost } from '../core/json-parse-cost.js';
import type { Verdict } from '../core/verdict.js';
import { RecordingWriter } from './recording-writer.js';
import { partialPath, publishFile, removeRecordingFiles } from './recording-files.js';
import { refuseExistingRecording } from './refuse-existing.js';
import type { MessageInput, StoreTotals } from './store-types.js';
import { jsonTextAt } from './stored-json.js';
import { lastMemberText, type LastMember } from './ndjson-last-member.js';
import { withWrittenJson } from './written-json.js';
import { stringifyJson } from '../core/json-text.js';
import { tryParseJson } from '../core/json.js';
import { StoreError } from './store-errors.js';
import { LineProblem, checkExchangeLine, checkMessageLine, checkRecordingLine } from './ndjson-check.js';
import { derivedSchemaRef } from './ndjson-derived-ref.js';
import { NDJSON_FORMAT, decodeRaw, rawAround, type NdjsonExchangeLine, type NdjsonMessageLine, type NdjsonRecordingLine } from './ndjson-format.js';
import { SQLITE_MAGIC } from './file-head.js';

export interface ImportOptions {
  /** Replace an existing output file. */
  overwrite?: boolean;
  /** The output is a throwaway copy, read and deleted again (see openDatabase): no journal on disk, nothing synced. */
  scratch?: boolean;
  /**
   * Credentials of a well-known format are stored redacted (store/stored-credentials.ts) except those
   * these match; `all` keeps the file as it is (a copy made to read it, or to append to it).
   */
  keepSecrets?: readonly RegExp[] | 'all';
  /** Move the messages' bytes into compressed blocks (default: unless `scratch`); false for a copy only exported again. */
  compact?: boolean;
}

/**
 * The JS heap one line may take to parse (see jsonParseCost). An exported message keeps its bytes as
 * a string, cheap to parse, and its JSON only when it was small enough to judge; a line past this is
 * no export (200 MB of `{}` would need gigabytes and minutes), and is refused before JSON.parse.
 */
export const MAX_LINE_PARSE_COST = 1024 * 1024 * 1024;

// Told from a file's head without loading the importer (validate of a plain file, start-up).
export { isNdjsonRecordingText } from './file-head.js';

/**
 * Rebuilds a recording (.db) from its NDJSON form, restoring every column as exported: the
 * recording row (mode, times, schema hashes), exchanges with their ids, messages with their exact
 * bytes, verdicts and findings. `export → import → export` is byte-identical.
 */
export function importNdjsonFile(file: string, out: string, options: ImportOptions = {}): StoreTotals {
  return importNdjsonText(readNdjsonRecordingText(file), out, { ...options, file });
}

/** The text of an NDJSON recording file, refused with one line when it cannot be one (unreadable, SQLite, binary). */
export function readNdjsonRecordingText(file: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (cause) {
    throw new InputError('E_INPUT_UNREADABLE', `${file}: cannot read: ${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message}`, { file, cause });
  }
  if (bytes.toString('latin1', 0, 16) === SQLITE_MAGIC) {
    throw new InputError('E_INPUT_MALFORMED', `${file}: not an NDJSON recording but an SQLite file; import reads what export --format ndjson writes (a .db recording needs no import)`, { file });
  }
  if (bytes.subarray(0, 4096).includes(0)) throw new InputError('E_INPUT_MALFORMED', `${file}: not a recording (binary data, not NDJSON text)`, { file });
  return bytes.toString('utf8');
}

/** `onMessage`: told of each message written (the CLI's progress line). */
export function importNdjsonText(text: string, out: string, options: ImportOptions & { file?: string; onMessage?: () => void } = {}): StoreTotals {
  const file = options.file ?? '<ndjson>';
  // Written under a temporary name beside `out` and renamed once complete: a failure, or a kill
  // halfway, never leaves a half recording under the name asked for (nor costs the file it replaces).
  const target = resolve(out);
  refuseExistingRecording(target, options.overwrite);
  const partial = partialPath(target);
  let writer: RecordingWriter | undefined;
  let header: NdjsonRecordingLine | undefined;
  /** Exported exchange id → the id the writer gave it. */
  const ids = new Map<number, number>();
  /** Exported exchange id → its protocol, which a version 3 line's derived ref depends on. */
  const protocols = new Map<number, string | null>();
  let lineNo = 0;
  let start = 0;
  try {
    while (start < text.length) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      const line = text.slice(start, end > start && text.charCodeAt(end - 1) === CR ? end - 1 : end);
      start = end + 1;
      lineNo++;
      // An exported line starts with `{`: only another one may be blank.
      if (line.charCodeAt(0) !== OPEN_BRACE && line.trim() === '') continue;
      if (jsonParseCost(line, MAX_LINE_PARSE_COST) > MAX_LINE_PARSE_COST) {
        throw malformed(file, lineNo, `a line of ${line.length} characters whose parse would take more than ${MAX_LINE_PARSE_COST / 1024 ** 3} GiB of memory: no export writes such a line`);
      }
      let value: Record<string, unknown>;
      try {
        value = JSON.parse(lineNo === 1 ? line.replace(/^\uFEFF/, '') : line) as Record<string, unknown>;
      } catch (cause) {
        // A last line without its LF is most likely a file cut short (a copy or a write that stopped).
        const cut = end === text.length ? 'cut short, ' : '';
        throw malformed(file, lineNo, `${cut}not valid JSON: ${(cause as Error).message}`);
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw malformed(file, lineNo, 'expected a JSON object');
      if (!header) {
        if (value.type !== 'recording' || value.format !== NDJSON_FORMAT) {
          throw malformed(file, lineNo, `the first line must be {"type":"recording","format":"${NDJSON_FORMAT}",…}`);
        }
        checked(file, lineNo, () => checkRecordingLine(value));
        header = value as unknown as NdjsonRecordingLine;
        writer = RecordingWriter.open(
          partial,
          {
            toolVersion: String(header.toolVersion),
            target: header.target ?? undefined,
            listen: header.listen ?? undefined,
            mode: header.mode,
            schemaHashes: header.schemaHashes ?? {},
            startedAt: new Date(header.startedAt),
            // The copy's verdicts are the original's: judged by its rules, not this build's.
            rulesVersion: header.rulesVersion ?? null,
          },
          { overwrite: true, maxBatch: 5000, scratch: options.scratch, compact: options.compact, keepSecrets: options.keepSecrets },
        );
        continue;
      }
      if (value.type === 'exchange') {
        checked(file, lineNo, () => checkExchangeLine(value));
        const e = value as unknown as NdjsonExchangeLine;
        if (ids.has(e.id)) throw malformed(file, lineNo, `exchange ${e.id} is declared a second time`);
        const { type: _, ...exchange } = e;
        ids.set(e.id, writer!.restoreExchange(exchange));
        protocols.set(e.id, e.protocol ?? null);
        continue;
      }
      if (value.type === 'message') {
        const version = header.version;
        // Before the check, which sets each absent nullable field to null.
        const written = lastMemberText(line, value);
        checked(file, lineNo, () => checkMessageLine(value, version));
        const m = value as unknown as NdjsonMessageLine & { verdict: NonNullable<NdjsonMessageLine['verdict']> };
        const exchangeId = ids.get(m.exchange);
        if (exchangeId === undefined) throw malformed(file, lineNo, `message of exchange ${m.exchange}, which no earlier line declares`);
        const bytes = messageBytes(m, version, file, lineNo, written);
        const verdict: Verdict = { status: m.verdict.status, findings: m.verdict.findings ?? [] };
        const schemaRef = m.verdict.schemaRef !== undefined || version < 3 ? m.verdict.schemaRef : derivedSchemaRef(protocols.get(m.exchange) ?? null, m.sender, m.carrier, bytes.json);
        if (schemaRef !== null && schemaRef !== undefined) verdict.schemaRef = schemaRef;
        if (m.verdict.reason !== null && m.verdict.reason !== undefined) verdict.reason = m.verdict.reason;
        const { written: json, ...given } = bytes;
        writer!.addMessage(
          withWrittenJson(
            {
              exchangeId,
              sender: m.sender,
              carrier: m.carrier,
              channel: m.channel ?? undefined,
              tOffsetMs: m.tOffsetMs,
              ...given,
              verdict,
              rawTruncatedFrom: m.rawTruncatedFrom ?? undefined,
            },
            json,
          ),
        );
        options.onMessage?.();
        continue;
      }
      if (value.type === 'recording') throw malformed(file, lineNo, 'a second recording line');
      throw malformed(file, lineNo, `"type" must be exchange or message, not ${JSON.stringify(value.type) ?? 'missing'}`);
    }
    if (!writer || !header) throw new InputError('E_INPUT_MALFORMED', `${file}: not a recording (the file holds no lines)`, { file });
    const totals = writer.totals;
    // null: the original never ended. Absent (a hand-written line): ended now.
    writer.close(header.endedAt === null ? null : header.endedAt === undefined ? new Date() : new Date(header.endedAt));
    publishFile(writer.file, target, options.overwrite);
    return totals;
  } catch (error) {
    if (writer) {
      try {
        writer.close();
      } catch {
        /* the first error is the one to report */
      }
      // Half a recording would read as a whole one: the file this import created goes again.
      removeRecordingFiles(writer.file);
    }
    // The temporary name is ours: an error about it is about the file asked for.
    if (error instanceof StoreError && error.message.includes(partial)) {
      throw new StoreError(error.code, target, error.message.split(partial).join(target), { cause: error });
    }
    throw error;
  }
}

/**
 * A message line's bytes and JSON (ndjson-format.ts): `rawJson` between `rawBefore` and `rawAfter` (by default RAW_AROUND's from version 3),
 * or `raw`/`rawBase64` with the JSON text at `jsonAt`, or the value `json`.
 */
function messageBytes(m: NdjsonMessageLine, version: number, file: string, line: number, written: LastMember | undefined): Pick<MessageInput, 'raw' | 'json' | 'jsonText'> & { written?: string } {
  if (m.rawJson !== undefined) {
    // The text the export spliced in: the value as stringifyJson writes it.
    const jsonText = (written?.key === 'rawJson' ? written.text : undefined) ?? stringifyJson(m.rawJson)!;
    const around = rawAround(version, m.carrier);
    return { raw: rawBytes.of(m.rawBefore ?? around.before, jsonText, m.rawAfter ?? around.after), json: m.rawJson, jsonText };
  }
  const raw = decodeRaw(m)!;
  if (m.jsonAt === undefined) return { raw, json: m.json, written: written?.key === 'json' ? written.text : undefined };
  const jsonText = m.jsonAt <= raw.length ? jsonTextAt(raw, m.jsonAt) : '';
  const json = tryParseJson(jsonText);
  if (json === undefined) throw malformed(file, line, `"jsonAt": the bytes from ${m.jsonAt} on are not JSON`);
  return { raw, json, jsonText };
}

const CR = 0x0d;
const OPEN_BRACE = 0x7b;

/**
 * A message's bytes, `before` + `json` + `after` as UTF-8, written into one buffer reused for every
 * message: the writer copies the bytes it is given (recording-writer.ts), so a buffer (and a joined
 * string) per message would only be garbage. A message larger than REUSED_BYTES gets a buffer of its own.
 */
const rawBytes = new (class {
  private buffer = Buffer.allocUnsafeSlow(64 * 1024);
  of(before: string, json: string, after: string): Buffer {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    const most = 3 * (before.length + json.length + after.length);
    let buffer = this.buffer;
    if (most > buffer.length) {
      buffer = Buffer.allocUnsafeSlow(most);
      if (most <= REUSED_BYTES) this.buffer = buffer;
    }
    // Written one after another, they are the joined string's bytes: `json` (JSON.stringify's) begins and
    // ends with a character of JSON's own, never half a surrogate pair that `before` or `after` would complete.
    let at = before.length === 0 ? 0 : buffer.write(before, 0, 'utf8');
    at += buffer.write(json, at, 'utf8');
    if (after.length > 0) at += buffer.write(after, at, 'utf8');
    return buffer.subarray(0, at);
  }
})();

const REUSED_BYTES = 4 * 1024 * 1024;

/** `<file>: not a recording (line N: what is wrong)`. */
function malformed(file: string, line: number, message: string): InputError {
  return new InputError('E_INPUT_MALFORMED', `${file}: not a recording (line ${line}: ${message})`, { file, line });
}

/** Runs a line check, turning its problem into the importer's error for this file and line. */
function checked(file: string, line: number, check: () => void): void {
  try {
    check();
  } catch (error) {
    if (!(error instanceof LineProblem)) throw error;
    if (error.newer) throw new StoreError('E_STORE_VERSION', file, `${file} is ${error.message} (line ${line})`);
    throw malformed(file, line, error.message);
  }
}
