import { readFileSync } from 'node:fs';
import { InputError } from '../core/errors.js';
import type { Verdict } from '../core/verdict.js';
import { openDatabase } from '../store/open-database.js';
import { RecordingWriter } from '../store/recording-writer.js';
import type { StoreTotals } from '../store/store-types.js';
import { NDJSON_FORMAT, decodeRaw, type NdjsonExchangeLine, type NdjsonMessageLine, type NdjsonRecordingLine } from './ndjson-format.js';

export interface ImportOptions {
  /** Replace an existing output file. */
  overwrite?: boolean;
}

/** Is this text (the start of a file is enough) an agent-proxy NDJSON recording? */
export function isNdjsonRecordingText(text: string): boolean {
  const end = text.indexOf('\n');
  const first = (end < 0 ? text : text.slice(0, end)).replace(/^\uFEFF/, '').trim();
  if (!first.startsWith('{')) return false;
  try {
    const value = JSON.parse(first) as { type?: unknown; format?: unknown };
    return value.type === 'recording' && value.format === NDJSON_FORMAT;
  } catch {
    return false;
  }
}

/**
 * Rebuilds a recording (.db) from its NDJSON form, restoring every column as exported: the
 * recording row (mode, times, schema hashes), exchanges with their ids, messages with their exact
 * bytes, verdicts and findings. `export → import → export` is byte-identical.
 */
export function importNdjsonFile(file: string, out: string, options: ImportOptions = {}): StoreTotals {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw new InputError('E_INPUT_UNREADABLE', `${file}: cannot read: ${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message}`, { file, cause });
  }
  return importNdjsonText(text, out, { ...options, file });
}

export function importNdjsonText(text: string, out: string, options: ImportOptions & { file?: string } = {}): StoreTotals {
  const file = options.file ?? '<ndjson>';
  let writer: RecordingWriter | undefined;
  let header: NdjsonRecordingLine | undefined;
  /** Exported exchange id → the id the writer gave it. */
  const ids = new Map<number, number>();
  const ends: Array<[number, NdjsonExchangeLine]> = [];
  let lineNo = 0;
  let start = 0;
  try {
    while (start < text.length) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      const line = text.slice(start, end).replace(/\r$/, '');
      start = end + 1;
      lineNo++;
      if (line.trim() === '') continue;
      let value: Record<string, unknown>;
      try {
        value = JSON.parse(lineNo === 1 ? line.replace(/^\uFEFF/, '') : line) as Record<string, unknown>;
      } catch (cause) {
        throw malformed(file, lineNo, `not valid JSON: ${(cause as Error).message}`);
      }
      if (value === null || typeof value !== 'object') throw malformed(file, lineNo, 'expected a JSON object');
      if (!header) {
        if (value.type !== 'recording' || value.format !== NDJSON_FORMAT) {
          throw malformed(file, lineNo, `not an agent-proxy NDJSON recording (the first line must be {"type":"recording","format":"${NDJSON_FORMAT}",…})`);
        }
        header = value as unknown as NdjsonRecordingLine;
        writer = RecordingWriter.open(
          out,
          {
            toolVersion: String(header.toolVersion),
            target: header.target ?? undefined,
            listen: header.listen ?? undefined,
            mode: header.mode === 'import' ? 'import' : 'record',
            schemaHashes: header.schemaHashes ?? {},
            startedAt: new Date(header.startedAt),
          },
          { overwrite: options.overwrite, maxBatch: 5000 },
        );
        continue;
      }
      if (value.type === 'exchange') {
        const e = value as unknown as NdjsonExchangeLine;
        const id = writer!.beginExchange({
          transport: e.transport,
          protocol: e.protocol ?? undefined,
          method: e.method ?? undefined,
          path: e.path ?? undefined,
          query: e.query ?? undefined,
          url: e.url ?? undefined,
          subprotocol: e.subprotocol ?? undefined,
          requestHeaders: e.requestHeaders ?? undefined,
          tOffsetMs: e.startedMs,
        });
        ids.set(e.id, id);
        if (e.status !== null || e.responseHeaders !== null) {
          writer!.updateExchange(id, { status: e.status ?? undefined, responseHeaders: e.responseHeaders ?? undefined });
        }
        if (e.outcome !== null) ends.push([id, e]);
        continue;
      }
      if (value.type === 'message') {
        const m = value as unknown as NdjsonMessageLine;
        const exchangeId = ids.get(m.exchange);
        if (exchangeId === undefined) throw malformed(file, lineNo, `message of exchange ${m.exchange}, which no earlier line declares`);
        const raw = decodeRaw(m);
        if (raw === undefined) throw malformed(file, lineNo, 'a message needs "raw" or "rawBase64"');
        const verdict: Verdict = { status: m.verdict.status, findings: m.verdict.findings ?? [] };
        if (m.verdict.schemaRef !== null && m.verdict.schemaRef !== undefined) verdict.schemaRef = m.verdict.schemaRef;
        if (m.verdict.reason !== null && m.verdict.reason !== undefined) verdict.reason = m.verdict.reason;
        writer!.addMessage({
          exchangeId,
          sender: m.sender,
          carrier: m.carrier,
          channel: m.channel ?? undefined,
          tOffsetMs: m.tOffsetMs,
          raw,
          json: 'json' in m ? m.json : undefined,
          verdict,
          rawTruncatedFrom: m.rawTruncatedFrom ?? undefined,
        });
        continue;
      }
      throw malformed(file, lineNo, `unknown line type ${JSON.stringify(value.type)}`);
    }
    if (!writer || !header) throw new InputError('E_INPUT_MALFORMED', `${file}: the file holds no recording`, { file });
    for (const [id, e] of ends) {
      writer.endExchange(id, {
        outcome: e.outcome!,
        tOffsetMs: e.endedMs ?? e.startedMs,
        errorCode: e.errorCode ?? undefined,
        errorMessage: e.errorMessage ?? undefined,
        closeCode: e.closeCode ?? undefined,
        closeReason: e.closeReason ?? undefined,
        exitCode: e.exitCode ?? undefined,
        signal: e.signal ?? undefined,
      });
    }
    const totals = writer.totals;
    writer.close(header.endedAt ? new Date(header.endedAt) : new Date());
    restoreRecordingRow(writer.file, header);
    return totals;
  } catch (error) {
    try {
      writer?.close();
    } catch {
      /* the first error is the one to report */
    }
    throw error;
  }
}

/** What the writer cannot be told: a recording that never ended, and the exact mode. */
function restoreRecordingRow(file: string, header: NdjsonRecordingLine): void {
  if (header.endedAt !== null && (header.mode === 'record' || header.mode === 'import')) return;
  const db = openDatabase(file);
  try {
    db.prepare('UPDATE recording SET ended_at = ?, mode = ? WHERE id = 1').run(header.endedAt, header.mode);
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}

function malformed(file: string, line: number, message: string): InputError {
  return new InputError('E_INPUT_MALFORMED', `${file}:${line}: ${message}`, { file, line });
}
