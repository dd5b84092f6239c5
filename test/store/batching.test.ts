import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { error, warning } from '../../src/core/finding.js';
import { verdictFrom, withFindings } from '../../src/core/verdict.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import type { StoreError } from '../../src/store/store-errors.js';
import { ManualSchedule, meta, thrown } from './store-fixtures.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/waits.js';

let tmp: TempDir;
let open: Array<{ close(): void }> = [];
beforeEach(() => {
  tmp = tempDir();
  open = [];
});
afterEach(() => {
  for (const c of open.reverse()) {
    try {
      c.close();
    } catch {
      // already reported by the test
    }
  }
  tmp.cleanup();
});

/** A second connection, as another process (`proxy show`) would have. */
function peek(file: string): { count(table: string): number; db: Database.Database } {
  const db = new Database(file, { readonly: true });
  open.push(db);
  return { db, count: (table) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n };
}

function writer(name: string, options: Parameters<typeof RecordingWriter.open>[2]): RecordingWriter {
  const w = RecordingWriter.open(join(tmp.dir, name), meta(), options);
  open.push(w);
  return w;
}

function message(exchangeId: number, n: number) {
  return { exchangeId, sender: 'server' as const, carrier: 'event' as const, tOffsetMs: n, raw: Buffer.from(`data: ${n}\n\n`), json: n, verdict: verdictFrom([]) };
}

describe('batched writes', () => {
  it('below maxBatch schedules only the interval write; at maxBatch the batch goes out on the next turn', () => {
    const schedule = new ManualSchedule();
    const w = writer('batch.sqlite', { flushIntervalMs: 600_000, maxBatch: 3, schedule });
    const other = peek(w.file);
    expect(other.count('recording')).toBe(1);

    const ex = w.beginExchange({ transport: 'sse', tOffsetMs: 0 });
    w.addMessage(message(ex, 1));
    expect(w.pending).toBe(2);
    expect(schedule.scheduled).toEqual({ afterMs: 600_000, nextTurn: false });
    expect(other.count('exchanges')).toBe(0);
    expect(other.count('messages')).toBe(0);

    w.addMessage(message(ex, 2));
    // The enqueue itself never writes; the full batch is scheduled for the next turn of the event loop.
    expect(other.count('messages')).toBe(0);
    expect(schedule.scheduled).toEqual({ afterMs: 600_000, nextTurn: true });
    schedule.runNextTurn();
    expect(other.count('messages')).toBe(2);
    expect(other.count('exchanges')).toBe(1);
    expect(w.pending).toBe(0);
    // Written: the interval write is cancelled with it.
    expect(schedule.scheduled).toEqual({ nextTurn: false });

    w.addMessage(message(ex, 3));
    expect(schedule.scheduled).toEqual({ afterMs: 600_000, nextTurn: false });
    expect(other.count('messages')).toBe(2);
    w.flush();
    expect(other.count('messages')).toBe(3);
    expect(schedule.scheduled).toEqual({ nextTurn: false });
  });

  it('writes queued rows when flushIntervalMs after the first has passed, and re-arms for the next', () => {
    const schedule = new ManualSchedule();
    const w = writer('timer.sqlite', { flushIntervalMs: 50, schedule });
    const other = peek(w.file);
    const ex = w.beginExchange({ transport: 'ws', tOffsetMs: 0 });
    w.addMessage(message(ex, 1));
    // One timed write for the whole burst (exchange and message), armed by its first row.
    expect(schedule.scheduled).toEqual({ afterMs: 50, nextTurn: false });
    expect(schedule.timedScheduled).toBe(1);
    expect(other.count('messages')).toBe(0);
    schedule.runTimed();
    expect(other.count('messages')).toBe(1);
    expect(schedule.scheduled).toEqual({ nextTurn: false });
    // A second burst re-arms it.
    w.addMessage(message(ex, 2));
    w.endExchange(ex, { outcome: 'complete', tOffsetMs: 5 });
    expect(schedule.scheduled).toEqual({ afterMs: 50, nextTurn: false });
    expect(schedule.timedScheduled).toBe(2);
    schedule.runTimed();
    expect(other.count('messages')).toBe(2);
    expect(other.db.prepare('SELECT outcome FROM exchanges').get()).toEqual({ outcome: 'complete' });
  });

  it('on the default schedule, queued rows reach the file without a flush', async () => {
    const w = writer('default.sqlite', { flushIntervalMs: 5 });
    const other = peek(w.file);
    const ex = w.beginExchange({ transport: 'ws', tOffsetMs: 0 });
    w.addMessage(message(ex, 1));
    await waitFor(() => other.count('messages') === 1, 'the event loop to write the message');
    expect(w.pending).toBe(0);
  });

  it('writes synchronously when a producer queues many batches without yielding', () => {
    const w = writer('backstop.sqlite', { flushIntervalMs: 600_000, maxBatch: 2 });
    const other = peek(w.file);
    const ex = w.beginExchange({ transport: 'ndjson', tOffsetMs: 0 });
    for (let i = 1; i <= 40; i++) w.addMessage(message(ex, i));
    expect(other.count('messages')).toBeGreaterThan(0);
    expect(w.pending).toBeLessThan(16);
  });

  it('writes synchronously once the queued messages hold 8 MiB, however few they are', () => {
    const w = writer('bytes.sqlite', { flushIntervalMs: 600_000 });
    const other = peek(w.file);
    const ex = w.beginExchange({ transport: 'http', tOffsetMs: 0 });
    const big = (n: number) => ({ ...message(ex, n), raw: Buffer.alloc(3 * 1024 * 1024, 'x'), json: undefined });
    w.addMessage(big(1));
    w.addMessage(big(2));
    expect(other.count('messages')).toBe(0);
    w.addMessage(big(3));
    expect(other.count('messages')).toBe(3);
    expect(w.pending).toBe(0);
  });

  it('addFindings after the message was written appends rows and updates the verdict', async () => {
    const w = writer('late.sqlite', { flushIntervalMs: 600_000 });
    const ex = w.beginExchange({ transport: 'sse', tOffsetMs: 0 });
    const first = verdictFrom([warning('schema.extra', '/y', 'y is unknown')], 'ref#/$defs/Event');
    const id = w.addMessage({ ...message(ex, 1), verdict: first });
    w.flush();
    const other = peek(w.file);
    expect(other.db.prepare('SELECT status, finding_count FROM messages WHERE id = ?').get(id)).toEqual({ status: 'valid', finding_count: 1 });
    expect(w.totals.invalid).toBe(0);

    const late = [error('agui.run-not-finished', '', 'the stream ended without RUN_FINISHED')];
    w.addFindings(id, ex, late, withFindings(first, late));
    expect(w.totals).toEqual({ exchanges: 1, messages: 1, invalid: 1, findings: 2 });
    w.flush();
    expect(other.db.prepare('SELECT status, (SELECT ref FROM schema_refs r WHERE r.id = schema_ref_id) AS schema_ref, finding_count FROM messages WHERE id = ?').get(id)).toEqual({
      status: 'invalid', schema_ref: 'ref#/$defs/Event', finding_count: 2,
    });
    w.close();

    const reader = RecordingReader.open(w.file);
    open.push(reader);
    const [m] = reader.messages(ex);
    expect(m.verdict).toEqual({ status: 'invalid', schemaRef: 'ref#/$defs/Event', findings: [...first.findings, ...late] });
    expect(reader.invalidMessages().map((x) => x.id)).toEqual([id]);
    expect(reader.totals()).toEqual({ exchanges: 1, messages: 1, invalid: 1, findings: 2 });
  });

  it('addFindings while the message is still queued is applied in order', () => {
    const w = writer('queued.sqlite', { flushIntervalMs: 600_000 });
    const ex = w.beginExchange({ transport: 'sse', tOffsetMs: 0 });
    const id = w.addMessage(message(ex, 1));
    const late = [error('stream.truncated', '', 'cut')];
    w.addFindings(id, ex, late, verdictFrom(late));
    w.close();
    const reader = RecordingReader.open(w.file);
    open.push(reader);
    expect(reader.messages(ex)[0].verdict).toEqual({ status: 'invalid', findings: late });
  });

  it('reports a failed background write once, then drops rows and throws it from flush and close', () => {
    const errors: StoreError[] = [];
    const schedule = new ManualSchedule();
    const w = RecordingWriter.open(join(tmp.dir, 'fail.sqlite'), meta(), { flushIntervalMs: 10, onError: (e) => errors.push(e), schedule });
    // Another connection takes exchange id 1 first, so the writer's batch violates the primary key.
    const rogue = new Database(w.file);
    open.push(rogue);
    rogue.prepare("INSERT INTO exchanges (id, transport, started_ms) VALUES (1, 'http', 0)").run();

    const ex = w.beginExchange({ transport: 'http', tOffsetMs: 0 });
    w.addMessage(message(ex, 1));
    schedule.runTimed();
    expect(errors).toHaveLength(1);
    expect(errors[0].code).toBe('E_STORE_WRITE');
    expect(w.failure).toBe(errors[0]);
    expect(w.dropped).toBe(2);

    // The forwarding path keeps working; rows are counted as dropped.
    w.addMessage(message(ex, 2));
    expect(w.dropped).toBe(3);
    expect(w.totals.messages).toBe(2);
    expect((thrown(() => w.flush()) as StoreError).code).toBe('E_STORE_WRITE');
    expect((thrown(() => w.close()) as StoreError).code).toBe('E_STORE_WRITE');
    expect(errors).toHaveLength(1);
    w.close();
  });
});

describe('exchange rows merged while queued', () => {
  const row = (other: ReturnType<typeof peek>, id: number) => other.db.prepare('SELECT * FROM exchanges WHERE id = ?').get(id) as Record<string, unknown>;

  it('writes an exchange begun, updated and ended in one batch as one complete row', () => {
    const w = writer('merged.sqlite', { flushIntervalMs: 600_000 });
    const ex = w.beginExchange({ transport: 'http', method: 'GET', path: '/v1/x', requestHeaders: { a: '1' }, tOffsetMs: 1 });
    w.updateExchange(ex, { status: 200, responseHeaders: { b: ['2', '3'] } });
    w.updateExchange(ex, { transport: 'sse', protocol: 'ag-ui' });
    w.endExchange(ex, { outcome: 'aborted', tOffsetMs: 9, errorCode: 'E_X', errorMessage: 'first' });
    // A second end replaces the first, also while queued.
    w.endExchange(ex, { outcome: 'complete', tOffsetMs: 10 });
    expect(w.pending).toBe(1);
    w.flush();
    expect(row(peek(w.file), ex)).toMatchObject({
      transport: 'sse', protocol: 'ag-ui', method: 'GET', path: '/v1/x', status: 200,
      request_headers: '{"a":"1"}', response_headers: '{"b":["2","3"]}',
      started_ms: 1, ended_ms: 10, outcome: 'complete', error_code: null, error_message: null,
    });
  });

  it('updates and ends an exchange whose row was already written', () => {
    const w = writer('late-update.sqlite', { flushIntervalMs: 600_000 });
    const ex = w.beginExchange({ transport: 'http', method: 'POST', tOffsetMs: 0 });
    w.updateExchange(ex, { status: 201 });
    w.flush();
    w.updateExchange(ex, { protocol: 'pi-rest' });
    w.endExchange(ex, { outcome: 'error', tOffsetMs: 3, errorCode: 'E_UPSTREAM_RESET' });
    expect(w.pending).toBe(2);
    w.flush();
    expect(row(peek(w.file), ex)).toMatchObject({ status: 201, protocol: 'pi-rest', outcome: 'error', ended_ms: 3, error_code: 'E_UPSTREAM_RESET' });
  });

  it('never merges into a row a backstop write has already taken', () => {
    const w = writer('backstop-merge.sqlite', { flushIntervalMs: 600_000, maxBatch: 1 });
    const other = peek(w.file);
    // maxBatch 1: the eighth queued row is written synchronously, inside beginExchange.
    const ids = Array.from({ length: 8 }, (_, i) => w.beginExchange({ transport: 'ws', tOffsetMs: i }));
    expect(other.count('exchanges')).toBe(8);
    for (const id of ids) w.endExchange(id, { outcome: 'complete', tOffsetMs: 100 + id });
    w.flush();
    for (const id of ids) expect(row(other, id)).toMatchObject({ outcome: 'complete', ended_ms: 100 + id });
  });
});

