import { jsonColumn } from './store-errors.js';
import type { ExchangeRow, Headers, Outcome, Transport } from './store-types.js';

/** An `exchanges` row as SQLite returns it (snake_case), with the counts a query may add. */
export interface ExchangeRecord {
  id: number;
  transport: string;
  protocol: string | null;
  method: string | null;
  path: string | null;
  query: string | null;
  url: string | null;
  status: number | null;
  subprotocol: string | null;
  request_headers: string | null;
  response_headers: string | null;
  started_ms: number;
  ended_ms: number | null;
  outcome: string | null;
  error_code: string | null;
  error_message: string | null;
  close_code: number | null;
  close_reason: string | null;
  exit_code: number | null;
  signal: string | null;
  message_count?: number;
  invalid_count?: number;
  unchecked_count?: number;
}

/** The exchange as readers hand it out; counts are 0 when the query did not compute them. */
export function exchangeFromRecord(r: ExchangeRecord): ExchangeRow {
  return {
    id: r.id,
    transport: r.transport as Transport,
    protocol: r.protocol,
    method: r.method,
    path: r.path,
    query: r.query,
    url: r.url,
    status: r.status,
    subprotocol: r.subprotocol,
    requestHeaders: r.request_headers === null ? null : (jsonColumn(r.request_headers, 'request_headers', r.id) as Headers),
    responseHeaders: r.response_headers === null ? null : (jsonColumn(r.response_headers, 'response_headers', r.id) as Headers),
    startedMs: r.started_ms,
    endedMs: r.ended_ms,
    outcome: r.outcome as Outcome | null,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    closeCode: r.close_code,
    closeReason: r.close_reason,
    exitCode: r.exit_code,
    signal: r.signal,
    messageCount: r.message_count ?? 0,
    invalidCount: r.invalid_count ?? 0,
    uncheckedCount: r.unchecked_count ?? 0,
  };
}
