import type Database from 'better-sqlite3';
import type { Severity } from '../core/finding.js';
import { messageLabelSql } from './queries/label-sql.js';

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
  seq: number;
  sender: 'client' | 'server';
  /** The message's type (`RUN_STARTED`, `response:get_state`, `session/prompt` …), or its channel or carrier. */
  label: string;
  rule: string;
  severity: Severity;
  pointer: string;
  message: string;
}

/**
 * Every finding with its exchange and message, in one query streamed row by row, so that a recording
 * of hundreds of thousands of messages is listed with flat memory and no query per finding. The
 * message's label is core/message-label.ts's, read from its stored JSON by SQLite (messageLabelSql,
 * built from the same LABEL_FIELDS), not parsed in JavaScript.
 */
const FINDING_LIST_SQL = `
  SELECT f.exchange_id AS exchange, e.transport, e.protocol, e.method, e.path, m.seq, m.sender,
    ${messageLabelSql({ json: 'm.json', sender: 'm.sender', carrier: 'm.carrier', channel: 'm.channel', status: 'e.status', method: 'e.method', path: 'e.path' })} AS label,
  f.rule, f.severity, f.pointer, f.message
  FROM findings f
  JOIN messages m ON m.id = f.message_id
  JOIN exchanges e ON e.id = f.exchange_id
  WHERE (@severity IS NULL OR f.severity = @severity)
    AND (@exchange IS NULL OR f.exchange_id = @exchange)
    AND (@rules IS NULL OR f.rule IN (SELECT value FROM json_each(@rules)))
  ORDER BY f.exchange_id, m.seq, f.id`;

export function prepareFindingList(db: Database.Database): (filter: FindingFilter) => IterableIterator<FindingListRow> {
  const statement = db.prepare(FINDING_LIST_SQL);
  return (filter) =>
    statement.iterate({
      severity: filter.severity ?? null,
      exchange: filter.exchange ?? null,
      rules: filter.rules && filter.rules.length > 0 ? JSON.stringify(filter.rules) : null,
    }) as IterableIterator<FindingListRow>;
}
