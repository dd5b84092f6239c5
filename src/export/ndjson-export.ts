import { stringifyJson } from '../core/json-text.js';
import { copyExchangeColumns } from '../store/exchange-record.js';
import type { RecordingReader } from '../store/recording-reader.js';
import type { ExchangeRow, MessageRow, RecordingInfo } from '../store/store-types.js';
import { messageValue } from '../store/message-value.js';
import { NDJSON_FORMAT, NDJSON_VERSION, encodeRaw, type NdjsonExchangeLine, type NdjsonMessageLine, type NdjsonRecordingLine } from '../store/ndjson-format.js';

/**
 * Writes a recording as NDJSON: the recording line, then every exchange, then every message in the
 * order record judged them (across exchanges: an MCP session's answers on its GET stream come between
 * the POSTs they answer, and `validate` of the file judges them again in that order, as the import
 * keeps it). Keys are always in the same order and nothing depends on the clock, so exporting the
 * same recording twice (or an imported copy of it) gives the same bytes. `write` gets whole lines;
 * `onMessage` is told of each message written (the CLI's progress line).
 */
export function exportNdjson(reader: RecordingReader, write: (text: string) => void, onMessage?: () => void): void {
  for (const chunk of ndjsonChunks(reader, onMessage)) write(chunk);
}

/**
 * exportNdjson to a stream that can be full (stdout on a pipe): when `write` says it is (returns
 * false, as a stream's write does), waits for `drained` before reading on, so that an export is
 * never queued in memory whole.
 */
export async function exportNdjsonPaced(reader: RecordingReader, write: (text: string) => boolean, drained: () => Promise<void>, onMessage?: () => void): Promise<void> {
  for (const chunk of ndjsonChunks(reader, onMessage)) if (!write(chunk)) await drained();
}

/** The export's text in chunks of about a MiB of whole lines. */
function* ndjsonChunks(reader: RecordingReader, onMessage?: () => void): IterableIterator<string> {
  // Read before writing anything, so that a damaged recording row or exchange fails with no output.
  const recording = recordingLine(reader.recording());
  const exchanges = reader.exchanges();
  let chunk = JSON.stringify(recording) + '\n';
  for (const exchange of exchanges) {
    chunk += JSON.stringify(exchangeLine(exchange)) + '\n';
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  for (const message of reader.messagesInOrder()) {
    // stringifyJson: a message may nest deeper than JSON.stringify can go.
    chunk += stringifyJson(messageLine(message)) + '\n';
    onMessage?.();
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk.length > 0) yield chunk;
}

/** About this many characters are written at a time. */
const CHUNK_CHARS = 1 << 20;

/** The whole export as one string (small recordings, tests). */
export function exportNdjsonText(reader: RecordingReader): string {
  const parts: string[] = [];
  exportNdjson(reader, (t) => parts.push(t));
  return parts.join('');
}

export function recordingLine(info: RecordingInfo): NdjsonRecordingLine {
  return {
    type: 'recording',
    format: NDJSON_FORMAT,
    version: NDJSON_VERSION,
    toolVersion: info.toolVersion,
    target: info.target ?? null,
    listen: info.listen ?? null,
    mode: info.mode,
    startedAt: info.startedAt,
    endedAt: info.endedAt ?? null,
    schemaHashes: info.schemaHashes,
    ...(info.rulesVersion === undefined ? {} : { rulesVersion: info.rulesVersion }),
  };
}

/** The exchange's columns, in column order (store/schema.ts), after `type`. */
export function exchangeLine(e: ExchangeRow): NdjsonExchangeLine {
  return copyExchangeColumns(e, { type: 'exchange' as const });
}

export function messageLine(m: MessageRow): NdjsonMessageLine {
  // Nested too deep to be handed out parsed, it is parsed here only to be written (as the import
  // stores it, so that export → import → export stays byte-identical).
  const json = messageValue(m);
  const verdict = {
    status: m.verdict.status,
    schemaRef: m.verdict.schemaRef ?? null,
    reason: m.verdict.reason ?? null,
    findings: m.verdict.findings.map((f) => ({ rule: f.rule, severity: f.severity, pointer: f.pointer, message: f.message })),
  };
  // One literal per shape, keys always in this order (`json` before `verdict`, absent when there is
  // none), written out: spreading a common part costs ten times as much, for every message of an export.
  const raw = encodeRaw(m.raw);
  const { exchangeId: exchange, seq, sender, carrier, channel, tOffsetMs, rawTruncatedFrom } = m;
  if ('raw' in raw) {
    return json === undefined
      ? { type: 'message', exchange, seq, sender, carrier, channel, tOffsetMs, raw: raw.raw, rawTruncatedFrom, verdict }
      : { type: 'message', exchange, seq, sender, carrier, channel, tOffsetMs, raw: raw.raw, rawTruncatedFrom, json, verdict };
  }
  return json === undefined
    ? { type: 'message', exchange, seq, sender, carrier, channel, tOffsetMs, rawBase64: raw.rawBase64, rawTruncatedFrom, verdict }
    : { type: 'message', exchange, seq, sender, carrier, channel, tOffsetMs, rawBase64: raw.rawBase64, rawTruncatedFrom, json, verdict };
}
