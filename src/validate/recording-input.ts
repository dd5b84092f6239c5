import type { HttpContext } from '../core/message.js';
import type { ChannelHint, ProtocolId } from '../protocols/protocol.js';
import type { ExchangeRow } from '../store/store-types.js';
import { storedHeader } from '../store/stored-header.js';
import type { ExchangeFinding, LoadedInput, SourceMessage, SourceStream } from './message-source.js';
import { exchangeFindings } from '../core/exchange-findings.js';
import { isNdjsonRecordingText } from '../store/ndjson-import.js';
import { openRecording } from '../store/open-recording.js';
import { SQLITE_MAGIC } from '../store/file-head.js';


/** Is this file content a recording (.db, or its NDJSON form)? */
export function isRecordingBytes(bytes: Buffer): boolean {
  if (bytes.toString('latin1', 0, 16) === SQLITE_MAGIC) return true;
  return isNdjsonRecordingText(bytes.subarray(0, 4096).toString('utf8'));
}

/**
 * A recording as `proxy validate` input: its JSON messages, re-judged, one stream per exchange, each
 * by the protocol record chose for it (a Pi REST checker still spans every REST exchange, as in record).
 */
export function recordingInput(file: string): LoadedInput {
  const reader = openRecording(file);
  try {
    const streams: SourceStream[] = [];
    const ofExchanges: ExchangeFinding[] = [];
    let index = 0;
    for (const exchange of reader.exchanges()) {
      for (const finding of exchangeFindings(exchange)) ofExchanges.push({ stream: labelOf(exchange), ...finding });
      const stream: SourceStream = { label: labelOf(exchange), hint: hintOf(exchange), protocol: exchange.protocol as ProtocolId | null, messages: [] };
      for (const m of reader.messages(exchange.id)) {
        // A message nested too deep to walk is judged too: the judge says it is too deep, and reads no further.
        const value = m.deepJson !== undefined ? JSON.parse(m.deepJson) : m.json;
        if (value === undefined) continue;
        const message: SourceMessage = { value, sender: m.sender, index: index++, carrier: m.carrier, text: m.raw.toString('utf8') };
        // A body has its request line and status, as when it was recorded (a RunAgentInput too).
        if (exchange.transport === 'http' || m.carrier === 'body') message.http = httpOf(exchange, m.sender);
        stream.messages.push(message);
      }
      if (stream.messages.length > 0) streams.push(stream);
    }
    return ofExchanges.length === 0 ? { file, format: 'capture', streams } : { file, format: 'capture', streams, exchangeFindings: ofExchanges };
  } finally {
    reader.close();
  }
}

function labelOf(e: ExchangeRow): string {
  return `#${e.id} ${`${e.method ?? ''} ${e.path ?? ''}`.trim() || e.transport}`;
}

function hintOf(e: ExchangeRow): ChannelHint {
  const hint: ChannelHint = { transport: e.transport };
  if (e.method !== null) hint.method = e.method;
  if (e.path !== null) hint.path = e.path;
  const contentType = storedHeader(e.responseHeaders, 'content-type');
  if (contentType !== undefined) hint.contentType = contentType;
  if (e.subprotocol !== null) hint.subprotocol = e.subprotocol;
  return hint;
}

function httpOf(e: ExchangeRow, sender: 'client' | 'server'): HttpContext {
  const http: HttpContext = { method: e.method ?? 'GET', path: e.path ?? '/', query: new URLSearchParams(e.query ?? '') };
  if (e.requestHeaders) http.requestHeaders = e.requestHeaders;
  if (sender === 'server') {
    if (e.status !== null) http.status = e.status;
    if (e.responseHeaders) http.responseHeaders = e.responseHeaders;
  }
  return http;
}
