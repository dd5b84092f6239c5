import { ExchangeErrorCode } from '../core/errors.js';
import type { ProtocolId } from '../protocols/catalog.js';
import { PROTOCOL_IDS } from '../protocols/catalog.js';
import { resolve } from 'node:path';
import { openRecordingAsync } from '../store/open-recording-async.js';
import type { ExchangeRow, MessageRow } from '../store/store-types.js';
import { tooDeepToNormalize } from './http/request-limits.js';

/** One recorded message, as replay needs it: who sent it, its exact bytes, its parsed value and when. */
export interface ScriptMessage {
  /** 1-based position within the exchange. */
  seq: number;
  sender: 'client' | 'server';
  carrier: MessageRow['carrier'];
  /** ws opcode (`text`, `binary`, `ping`, `pong`, `close`), `comment` for an SSE comment, `proto`; else null. */
  channel: string | null;
  /** The bytes as they travelled, framing included (SSE `data: …\n\n`, a protobuf length prefix). */
  raw: Buffer;
  /** The parsed value; undefined when the message was not JSON. */
  json: unknown;
  /** Milliseconds since the recording started. */
  tOffsetMs: number;
  /** True when `raw` is only a prefix (cut by --max-body): it cannot be replayed byte for byte. */
  truncated: boolean;
}

/** One recorded exchange with its messages in order. Transport-neutral: HTTP, streams and WebSockets alike. */
export interface ScriptExchange {
  id: number;
  transport: ExchangeRow['transport'];
  /** The protocol module that classified it, when it was one this build knows. */
  protocol: ProtocolId | undefined;
  method: string | null;
  path: string | null;
  query: string | null;
  /** The URL the client asked for: `record --forward` stores it whole (`https://host/path?query`), which is how a forward replay finds its host. */
  url: string | null;
  status: number | null;
  subprotocol: string | null;
  requestHeaders: Record<string, string | string[]> | null;
  responseHeaders: Record<string, string | string[]> | null;
  startedMs: number;
  endedMs: number | null;
  outcome: ExchangeRow['outcome'];
  errorCode: string | null;
  errorMessage: string | null;
  closeCode: number | null;
  closeReason: string | null;
  /** When the client ended a stdio agent's stdin; null when it never did, or the recording predates it. */
  stdinEndedMs: number | null;
  messages: ScriptMessage[];
}

/** A whole recording, ready to be played: exchanges in recorded order. */
export interface ReplayScript {
  /** Absolute path of the recording. */
  file: string;
  /** The upstream the recording was made against (`recording.target`), if stored. */
  target: string | undefined;
  exchanges: ScriptExchange[];
}

/** Loads a recording (.db or .ndjson) into memory as a replay script (the file is closed again before this returns). */
export async function loadReplayScript(file: string): Promise<ReplayScript> {
  const reader = await openRecordingAsync(file);
  try {
    // A forward proxy's own 407 (E_PROXY_AUTH) was never the origin's answer: nothing to play or send again.
    const exchanges = reader
      .exchanges()
      .filter((row) => row.errorCode !== ExchangeErrorCode.E_PROXY_AUTH)
      .map((row) => scriptExchange(row, reader.messages(row.id)));
    return { file: resolve(file), target: reader.recording().target, exchanges };
  } finally {
    reader.close();
  }
}

/** HTTP exchanges (plain bodies, SSE and protobuf streams), the ones the HTTP responder serves. */
export function httpExchanges(script: ReplayScript): ScriptExchange[] {
  return script.exchanges.filter((e) => e.transport === 'http' || e.transport === 'sse' || e.transport === 'proto');
}

/** WebSocket exchanges (accepted and rejected upgrades), the ones the WebSocket player serves. */
export function wsExchanges(script: ReplayScript): ScriptExchange[] {
  return script.exchanges.filter((e) => e.transport === 'ws');
}

/** The request body of an HTTP exchange: its first client message, if it had one. */
export function requestBodyOf(exchange: ScriptExchange): ScriptMessage | undefined {
  return exchange.messages.find((m) => m.sender === 'client');
}

/** The messages the server sent, in order. */
export function serverMessagesOf(exchange: ScriptExchange): ScriptMessage[] {
  return exchange.messages.filter((m) => m.sender === 'server');
}

function scriptExchange(row: ExchangeRow, rows: MessageRow[]): ScriptExchange {
  return {
    id: row.id,
    transport: row.transport,
    protocol: (PROTOCOL_IDS as readonly string[]).includes(row.protocol ?? '') ? (row.protocol as ProtocolId) : undefined,
    method: row.method,
    path: row.path,
    query: row.query,
    url: row.url,
    status: row.status,
    subprotocol: row.subprotocol,
    requestHeaders: row.requestHeaders,
    responseHeaders: row.responseHeaders,
    startedMs: row.startedMs,
    endedMs: row.endedMs,
    outcome: row.outcome,
    errorCode: row.errorCode,
    errorMessage: row.errorMessage,
    closeCode: row.closeCode,
    closeReason: row.closeReason,
    stdinEndedMs: row.stdinEndedMs,
    messages: rows.map((m) => ({
      seq: m.seq,
      sender: m.sender,
      carrier: m.carrier,
      channel: m.channel,
      raw: m.raw,
      // A client message is normalized and compared by recursive walks: past MAX_MATCH_DEPTH it is compared byte for byte.
      json: m.sender === 'client' && m.json !== undefined && tooDeepToNormalize(m.raw) ? undefined : m.json,
      tOffsetMs: m.tOffsetMs,
      truncated: m.rawTruncatedFrom !== null,
    })),
  };
}
