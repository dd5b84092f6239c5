import type Database from 'better-sqlite3';
import type { Severity } from '../core/finding.js';
import { CODES_WITH_EXCHANGE_FINDINGS, exchangeFindings } from '../core/exchange-findings.js';
import type { TlsFacts } from '../core/tls-facts.js';
import { jsonColumn } from './store-errors.js';

/** Which findings to list; every field narrows the list, none means all. */
export interface FindingFilter {
  /** Only these rule ids. */
  rules?: readonly string[];
  /** Only findings of this severity. */
  severity?: Severity;
  /** Only findings of this exchange. */
  exchange?: number;
}

/** One finding with where it is: its exchange and message. */
export interface FindingListRow {
  exchange: number;
  transport: string;
  protocol: string | null;
  method: string | null;
  path: string | null;
  /** The message's seq; 0 for a finding of the exchange itself (core/exchange-findings.ts), which has no message. */
  seq: number;
  /** Who sent the message; `server` for a finding of the exchange (the upstream's failure). */
  sender: 'client' | 'server';
  /** The message's type (`RUN_STARTED`, `response:get_state`, `session/prompt` …), or its channel or carrier. */
  label: string;
  rule: string;
  severity: Severity;
  pointer: string;
  message: string;
}

/** A string field of the stored JSON, when it is one (json_extract would hand out objects as JSON text). */
const field = (path: string) => `CASE WHEN json_type(m.json, '${path}') = 'text' THEN json_extract(m.json, '${path}') END`;

/**
 * Every finding with its exchange and message, in one query streamed row by row, so that a recording
 * of hundreds of thousands of messages is listed with flat memory and no query per finding. The
 * message's label is core/message-label.ts's, read from its stored JSON by SQLite, not parsed in
 * JavaScript: the type, else a frame's kind with the type inside, method, operation or event, a
 * JSON-RPC response; for a REST body its request line or status; else the JSON type or the channel.
 */
const FINDING_LIST_SQL = `
  SELECT f.exchange_id AS exchange, e.transport, e.protocol, e.method, e.path, m.seq, m.sender,
    coalesce(
      CASE WHEN m.json IS NOT NULL AND json_valid(m.json) THEN coalesce(
        ${field('$.type')},
        ${field('$.kind')} || coalesce(':' || coalesce(${field('$.event.type')}, ${field('$.response.type')}, ${field('$.command.type')}), ''),
        ${field('$.method')}, ${field('$.operation')}, ${field('$.event')},
        CASE WHEN json_type(m.json) = 'object' AND json_extract(m.json, '$.jsonrpc') = '2.0'
          THEN CASE WHEN json_type(m.json, '$.id') IS NOT NULL THEN 'response' ELSE 'json-rpc' END END
      ) END,
      CASE WHEN m.carrier = 'body' THEN coalesce(
        CASE WHEN m.sender = 'server' AND e.status IS NOT NULL THEN 'response ' || e.status END,
        nullif(trim(coalesce(e.method, '') || ' ' || coalesce(e.path, '')), '')
      ) END,
      CASE WHEN m.json IS NOT NULL AND json_valid(m.json) THEN
        CASE json_type(m.json) WHEN 'text' THEN 'string' WHEN 'integer' THEN 'number' WHEN 'real' THEN 'number'
          WHEN 'true' THEN 'boolean' WHEN 'false' THEN 'boolean' ELSE 'object' END END,
      m.channel, m.carrier) AS label,
  f.rule, f.severity, f.pointer, f.message
  FROM findings f
  JOIN messages m ON m.id = f.message_id
  JOIN exchanges e ON e.id = f.exchange_id
  WHERE (@severity IS NULL OR f.severity = @severity)
    AND (@exchange IS NULL OR f.exchange_id = @exchange)
    AND (@rules IS NULL OR f.rule IN (SELECT value FROM json_each(@rules)))
  ORDER BY f.exchange_id, m.seq, f.id`;

/** The exchanges that have findings of their own (few: they failed before any message). */
const EXCHANGES_WITH_FINDINGS_SQL = `
  SELECT id, transport, protocol, method, path, error_code AS errorCode, error_message AS errorMessage, tls
  FROM exchanges
  WHERE error_code IN (SELECT value FROM json_each(@codes)) AND (@exchange IS NULL OR id = @exchange)
  ORDER BY id`;

interface ExchangeWithFindings {
  id: number;
  transport: string;
  protocol: string | null;
  method: string | null;
  path: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  tls: string | null;
}

/** The label of a finding of the exchange itself, where a message's type would be. */
export const EXCHANGE_FINDING_LABEL = 'exchange';

export function prepareFindingList(db: Database.Database): (filter: FindingFilter) => IterableIterator<FindingListRow> {
  const statement = db.prepare(FINDING_LIST_SQL);
  const exchanges = db.prepare(EXCHANGES_WITH_FINDINGS_SQL);
  const codes = JSON.stringify(CODES_WITH_EXCHANGE_FINDINGS);
  return (filter) => {
    const rows = statement.iterate({
      severity: filter.severity ?? null,
      exchange: filter.exchange ?? null,
      rules: filter.rules && filter.rules.length > 0 ? JSON.stringify(filter.rules) : null,
    }) as IterableIterator<FindingListRow>;
    const own = (exchanges.all({ codes, exchange: filter.exchange ?? null }) as ExchangeWithFindings[]).flatMap((e) => exchangeRows(e, filter));
    return own.length === 0 ? rows : merged(rows, own);
  };
}

/** The exchange's own findings as list rows, filtered as the query filters the others. */
function exchangeRows(e: ExchangeWithFindings, filter: FindingFilter): FindingListRow[] {
  const tls = e.tls === null ? null : (jsonColumn(e.tls, 'tls', e.id) as TlsFacts);
  return exchangeFindings({ errorCode: e.errorCode, errorMessage: e.errorMessage, tls })
    .filter((f) => (filter.severity === undefined || f.severity === filter.severity) && (!filter.rules || filter.rules.length === 0 || filter.rules.includes(f.rule)))
    .map((f) => ({ exchange: e.id, transport: e.transport, protocol: e.protocol, method: e.method, path: e.path, seq: 0, sender: 'server', label: EXCHANGE_FINDING_LABEL, ...f }));
}

/** The message findings in their order, each exchange's own findings first (seq 0 comes before seq 1). */
function* merged(rows: IterableIterator<FindingListRow>, own: FindingListRow[]): IterableIterator<FindingListRow> {
  let next = 0;
  for (const row of rows) {
    while (next < own.length && own[next].exchange <= row.exchange) yield own[next++];
    yield row;
  }
  while (next < own.length) yield own[next++];
}
