import type Database from 'better-sqlite3';
import type { FindingFilter, FindingListRow } from './store-types.js';
import { messageLabelSql } from './queries/label-sql.js';
import { storedJsonSql } from './stored-json.js';
import { CODES_WITH_EXCHANGE_FINDINGS, exchangeFindings } from '../core/exchange-findings.js';
import type { TlsFacts } from '../core/tls-facts.js';
import { jsonColumn } from './store-errors.js';

/**
 * Every finding with its exchange and message, in one query streamed row by row, so that a recording
 * of hundreds of thousands of messages is listed with flat memory and no query per finding. The
 * message's label is core/message-label.ts's, read from its stored JSON by SQLite (messageLabelSql,
 * built from the same LABEL_FIELDS), not parsed in JavaScript.
 */
const FINDING_LIST_SQL = `
  SELECT f.exchange_id AS exchange, e.transport, e.protocol, e.method, e.path, m.seq, m.sender,
    ${messageLabelSql({ json: storedJsonSql('m'), sender: 'm.sender', carrier: 'm.carrier', channel: 'm.channel', status: 'e.status', method: 'e.method', path: 'e.path' })} AS label,
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
