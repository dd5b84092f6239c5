import type { Verdict } from '../core/verdict.js';
import { openDatabase } from './open-database.js';

/** One message's new verdict, by its exchange id and its place in it. */
export interface RewrittenVerdict {
  exchange: number;
  seq: number;
  verdict: Verdict;
}

/**
 * Replaces the stored verdicts (status, schema, reason, findings) of a recording's messages and
 * records the rules version they were made by, in one transaction. Only ever called on a scratch
 * copy (validate/current-verdicts.ts): a recording the user gave is not written to by reading it.
 */
export function rewriteVerdicts(file: string, verdicts: Iterable<RewrittenVerdict>, rulesVersion: number): void {
  const db = openDatabase(file, { scratch: true });
  try {
    const idOf = db.prepare('SELECT id FROM messages WHERE exchange_id = ? AND seq = ?').pluck();
    const update = db.prepare('UPDATE messages SET status = ?, schema_ref = ?, schema_ref_id = NULL, reason = ?, finding_count = ? WHERE id = ?');
    const drop = db.prepare('DELETE FROM findings WHERE message_id = ?');
    const add = db.prepare('INSERT INTO findings (message_id, exchange_id, rule, severity, pointer, message) VALUES (?, ?, ?, ?, ?, ?)');
    db.transaction(() => {
      for (const { exchange, seq, verdict } of verdicts) {
        const id = idOf.get(exchange, seq) as number | undefined;
        if (id === undefined) continue;
        update.run(verdict.status, verdict.schemaRef ?? null, verdict.reason ?? null, verdict.findings.length, id);
        drop.run(id);
        for (const f of verdict.findings) add.run(id, exchange, f.rule, f.severity, f.pointer, f.message);
      }
      db.prepare('UPDATE recording SET rules_version = ? WHERE id = 1').run(rulesVersion);
    })();
  } finally {
    db.close();
  }
}

/** Copies a recording (a live one's WAL included) into a new file, for rewriting. */
export function copyRecording(file: string, to: string): void {
  const db = openDatabase(file, { readonly: true });
  try {
    db.prepare('VACUUM INTO ?').run(to);
  } finally {
    db.close();
  }
}
