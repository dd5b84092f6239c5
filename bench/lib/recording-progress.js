// How far a recorder has got with its recording, read from the bench's process. A recorder's
// worker lags a flood by design, and on a shared machine it can go 50 ms without running while it
// still has a backlog, so "its CPU stopped moving" (proc-cpu.js `settled`) alone may be read long
// before it is done: a CPU figure taken then leaves out most of the recording (200,000 SSE events
// read as 2 µs each when 2,039 of them were stored). Waiting for the rows themselves cannot be fooled.
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';

const COUNTS = {
  // Message ids are handed out 1, 2, 3… in a new recording: the largest is the count, without a scan.
  messages: 'SELECT coalesce(max(id), 0) AS n FROM messages',
  // An exchange is done once its end is stored.
  exchanges: 'SELECT count(*) AS n FROM exchanges WHERE outcome IS NOT NULL',
};

export class RecordingProgress {
  /** `file`: a recording a recorder is writing (WAL: reading it never blocks the recorder); `unit`: messages or exchanges. */
  constructor(file, unit) {
    if (!(unit in COUNTS)) throw new Error(`unit: messages or exchanges, not ${unit}`);
    this.file = file;
    this.sql = COUNTS[unit];
    this.db = undefined;
  }

  /** Messages stored (or exchanges ended) so far; 0 before the recorder has made the file and its tables. */
  count() {
    if (!this.db && !existsSync(this.file)) return 0;
    this.db ??= new Database(this.file, { readonly: true, fileMustExist: true });
    try {
      return this.db.prepare(this.sql).get().n;
    } catch (error) {
      // Made but not yet a recording (its tables are created in the worker, after the file).
      if (!/no such table/.test(error.message)) throw error;
      this.close();
      return 0;
    }
  }

  /** Resolves once the recording holds at least `n` (polled every 20 ms, no deadline: a recorder that never gets there hangs the bench visibly). */
  async reach(n) {
    while (this.count() < n) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /** Closes the bench's connection: before the recorder stops, so that it can leave its file as one file. */
  close() {
    this.db?.close();
    this.db = undefined;
  }
}
