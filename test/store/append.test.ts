/**
 * `RecordingWriter.append`: continuing a finished recording ("new episodes" of a replay). Ids go on
 * after the largest ones in the file, earlier rows and the recording row stay as they were, a reader
 * of the same file may stay open, and a kill -9 mid-append keeps the file consistent.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { error } from '../../src/core/finding.js';
import { verdictFrom, type Verdict } from '../../src/core/verdict.js';
import { FORMAT_VERSION } from '../../src/store/migrations.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { StoreError } from '../../src/store/store-errors.js';
import { BUILT_WRITER_URL, ensureBuilt } from './built-writer.js';
import { childHasRun, childReports, meta, thrown } from './store-fixtures.js';
import { tempDir } from '../support/temp-dir.js';

const VALID: Verdict = { status: 'valid', findings: [] };

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

/** A closed recording: exchange 1 (http, 2 messages, one invalid with a finding), exchange 2 (sse, 1 message). */
function closedRecording(file: string): void {
  const w = RecordingWriter.open(file, meta());
  const a = w.beginExchange({ transport: 'http', protocol: 'pi-rest', method: 'POST', path: '/v1/a', tOffsetMs: 1 });
  w.updateExchange(a, { status: 200, responseHeaders: { 'content-type': 'application/json' } });
  w.addMessage({ exchangeId: a, sender: 'client', carrier: 'body', tOffsetMs: 1, raw: Buffer.from('{"q":1}'), json: { q: 1 }, verdict: VALID });
  w.addMessage({
    exchangeId: a,
    sender: 'server',
    carrier: 'body',
    tOffsetMs: 2,
    raw: Buffer.from('{"bad":true}'),
    json: { bad: true },
    verdict: verdictFrom([error('schema.required', '', 'missing ok')]),
  });
  w.endExchange(a, { outcome: 'complete', tOffsetMs: 3 });
  const b = w.beginExchange({ transport: 'sse', protocol: 'agui', method: 'POST', path: '/agent', tOffsetMs: 4 });
  w.addMessage({ exchangeId: b, sender: 'server', carrier: 'event', tOffsetMs: 5, raw: Buffer.from('data: {}\n\n'), json: {}, verdict: VALID });
  w.endExchange(b, { outcome: 'complete', tOffsetMs: 6 });
  w.close(new Date('2026-01-02T03:05:00.000Z'));
}

/** Everything a reader returns, for before/after comparisons. */
function snapshot(file: string) {
  const reader = RecordingReader.open(file);
  try {
    const exchanges = reader.exchanges();
    return {
      recording: reader.recording(),
      exchanges,
      messages: exchanges.map((e) => reader.messages(e.id)),
      invalid: reader.invalidMessages(),
      totals: reader.totals(),
    };
  } finally {
    reader.close();
  }
}

function codeOf(fn: () => unknown): string {
  const err = thrown(fn);
  expect(err).toBeInstanceOf(StoreError);
  return (err as StoreError).code;
}

describe('RecordingWriter.append', () => {
  it('continues a closed recording: ids go on, earlier rows and the recording row stay, the reader sees everything', () => {
    const file = join(tmp.dir, 'fixture.db');
    closedRecording(file);
    const before = snapshot(file);
    expect(before.totals).toEqual({ exchanges: 2, messages: 3, invalid: 1, findings: 1 });

    const w = RecordingWriter.append(file);
    expect(w.file).toBe(file);
    expect(w.appending).toBe(true);
    expect(w.startedAt.toISOString()).toBe(before.recording.startedAt);
    const c = w.beginExchange({ transport: 'http', method: 'GET', path: '/v1/new', tOffsetMs: 60_000 });
    expect(c).toBe(3);
    w.updateExchange(c, { status: 201 });
    const m1 = w.addMessage({ exchangeId: c, sender: 'server', carrier: 'body', tOffsetMs: 60_001, raw: Buffer.from('{"n":1}'), json: { n: 1 }, verdict: VALID });
    expect(m1).toBe(4);
    const m2 = w.addMessage({ exchangeId: c, sender: 'server', carrier: 'body', tOffsetMs: 60_002, raw: Buffer.from('{"n":2}'), json: { n: 2 }, verdict: VALID });
    expect(m2).toBe(5);
    w.addFindings(m2, c, [error('stream.end', '', 'late finding')], verdictFrom([error('stream.end', '', 'late finding')]));
    w.endExchange(c, { outcome: 'complete', tOffsetMs: 60_003 });
    // The writer's totals count this session only; the file's count everything.
    expect(w.totals).toEqual({ exchanges: 1, messages: 2, invalid: 1, findings: 1 });
    w.close(new Date('2026-03-04T05:06:07.000Z'));

    const after = snapshot(file);
    expect(after.recording).toEqual({ ...before.recording, endedAt: '2026-03-04T05:06:07.000Z' });
    expect(after.exchanges.slice(0, 2)).toEqual(before.exchanges);
    expect(after.messages.slice(0, 2)).toEqual(before.messages);
    expect(after.exchanges[2]).toMatchObject({ id: 3, method: 'GET', path: '/v1/new', status: 201, outcome: 'complete', startedMs: 60_000, messageCount: 2, invalidCount: 1 });
    expect(after.messages[2].map((m) => [m.id, m.seq, m.raw.toString()])).toEqual([
      [4, 1, '{"n":1}'],
      [5, 2, '{"n":2}'],
    ]);
    expect(after.invalid.map((m) => m.id)).toEqual([2, 5]);
    expect(after.totals).toEqual({ exchanges: 3, messages: 5, invalid: 2, findings: 2 });

    // Closed again as one self-contained file.
    expect(existsSync(`${file}-wal`)).toBe(false);
    const check = new Database(file, { readonly: true });
    expect(check.pragma('journal_mode', { simple: true })).toBe('delete');
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(check.pragma('foreign_key_check')).toEqual([]);
    check.close();

    // A second append goes on from there.
    const again = RecordingWriter.append(file);
    expect(again.beginExchange({ transport: 'ws', path: '/rpc', tOffsetMs: 90_000 })).toBe(4);
    again.close();
    expect(snapshot(file).exchanges.map((e) => e.id)).toEqual([1, 2, 3, 4]);
  });

  it('never changes rows that were in the file before', () => {
    const file = join(tmp.dir, 'fixture.db');
    closedRecording(file);
    const w = RecordingWriter.append(file);
    try {
      expect(codeOf(() => w.updateExchange(1, { status: 500 }))).toBe('E_STORE_STATE');
      expect(codeOf(() => w.endExchange(2, { outcome: 'error', tOffsetMs: 0 }))).toBe('E_STORE_STATE');
      expect(codeOf(() => w.addMessage({ exchangeId: 1, sender: 'server', carrier: 'body', tOffsetMs: 0, raw: Buffer.alloc(0), verdict: VALID }))).toBe('E_STORE_STATE');
      const c = w.beginExchange({ transport: 'http', tOffsetMs: 0 });
      expect(codeOf(() => w.addFindings(2, c, [], VALID))).toBe('E_STORE_STATE');
    } finally {
      w.close();
    }
    const after = snapshot(file);
    expect(after.exchanges[0]).toMatchObject({ id: 1, status: 200, outcome: 'complete' });
    expect(after.invalid.map((m) => m.id)).toEqual([2]);
  });

  it('works while a reader of the same file is open in the same process (before and after the append starts)', () => {
    const file = join(tmp.dir, 'fixture.db');
    closedRecording(file);
    // Opened while the file is still in rollback-journal mode; the writer switches it to WAL.
    const early = RecordingReader.open(file);
    const w = RecordingWriter.append(file);
    const late = RecordingReader.open(file);
    try {
      const c = w.beginExchange({ transport: 'http', method: 'GET', path: '/live', tOffsetMs: 10 });
      w.addMessage({ exchangeId: c, sender: 'server', carrier: 'body', tOffsetMs: 11, raw: Buffer.from('x'), verdict: VALID });
      expect(early.totals().exchanges).toBe(2); // queued, not written yet
      w.flush();
      for (const reader of [early, late]) {
        expect(reader.exchanges().map((e) => e.id)).toEqual([1, 2, 3]);
        expect(reader.messages(3).map((m) => m.id)).toEqual([4]);
      }
      w.endExchange(c, { outcome: 'complete', tOffsetMs: 12 });
      // Closing while readers are open: the file stays in WAL mode, which is fine.
      w.close(new Date('2026-05-06T07:08:09.000Z'));
      for (const reader of [early, late]) {
        expect(reader.exchange(3)).toMatchObject({ outcome: 'complete' });
        expect(reader.recording().endedAt).toBe('2026-05-06T07:08:09.000Z');
      }
    } finally {
      early.close();
      late.close();
    }
    expect(snapshot(file).totals).toEqual({ exchanges: 3, messages: 4, invalid: 1, findings: 1 });
  });

  it('refuses what is not a recording to append to, and creates nothing', () => {
    const missing = join(tmp.dir, 'missing.db');
    expect(codeOf(() => RecordingWriter.append(missing))).toBe('E_STORE_OPEN');
    expect(existsSync(missing)).toBe(false);

    const empty = join(tmp.dir, 'empty.db');
    writeFileSync(empty, '');
    expect(codeOf(() => RecordingWriter.append(empty))).toBe('E_STORE_NOT_RECORDING');
    expect(statSync(empty).size).toBe(0);

    const text = join(tmp.dir, 'text.db');
    writeFileSync(text, 'not sqlite at all, just some text that is long enough to look like a header...........');
    expect(codeOf(() => RecordingWriter.append(text))).toBe('E_STORE_NOT_RECORDING');

    const foreign = join(tmp.dir, 'foreign.db');
    const db = new Database(foreign);
    db.exec('CREATE TABLE people (name TEXT)');
    db.close();
    const bytes = readFileSync(foreign);
    expect(codeOf(() => RecordingWriter.append(foreign))).toBe('E_STORE_NOT_RECORDING');
    expect(readFileSync(foreign).equals(bytes)).toBe(true);

    // The recording tables' names at an older version, but not their columns: refused before any upgrade writes to it.
    const shaped = join(tmp.dir, 'shaped.db');
    const s = new Database(shaped);
    s.exec('CREATE TABLE recording (id INTEGER PRIMARY KEY); CREATE TABLE exchanges (id INTEGER PRIMARY KEY); CREATE TABLE messages (id INTEGER PRIMARY KEY); CREATE TABLE findings (id INTEGER PRIMARY KEY); INSERT INTO recording VALUES (1); PRAGMA user_version = 1;');
    s.close();
    const shapedBytes = readFileSync(shaped);
    const refused = thrown(() => RecordingWriter.append(shaped)) as StoreError;
    expect(refused.code).toBe('E_STORE_NOT_RECORDING');
    expect(refused.message).toContain('not a recording (missing columns: recording.format_version');
    expect(readFileSync(shaped).equals(shapedBytes)).toBe(true);

    const newer = join(tmp.dir, 'newer.db');
    closedRecording(newer);
    const n = new Database(newer);
    n.pragma(`user_version = ${FORMAT_VERSION + 1}`);
    n.close();
    expect(codeOf(() => RecordingWriter.append(newer))).toBe('E_STORE_VERSION');
  });

  it('a second writer appending at the same time fails its batch with E_STORE_WRITE and leaves the file intact', () => {
    const file = join(tmp.dir, 'fixture.db');
    closedRecording(file);
    const first = RecordingWriter.append(file);
    const second = RecordingWriter.append(file);
    first.beginExchange({ transport: 'http', path: '/first', tOffsetMs: 0 });
    first.flush();
    second.beginExchange({ transport: 'http', path: '/second', tOffsetMs: 0 });
    expect(codeOf(() => second.flush())).toBe('E_STORE_WRITE');
    expect(codeOf(() => second.close())).toBe('E_STORE_WRITE');
    first.close();
    expect(snapshot(file).exchanges.map((e) => [e.id, e.path])).toEqual([
      [1, '/v1/a'],
      [2, '/agent'],
      [3, '/first'],
    ]);
  });
});

/** The child: appends one SSE exchange to argv[2], 10 messages per millisecond, reports `<enqueued> <ms>` every 10 ms. */
const CHILD = (writerUrl: string) => `
import { RecordingWriter } from ${JSON.stringify(writerUrl)};
const writer = RecordingWriter.append(process.argv[2], { flushIntervalMs: 50 });
const ex = writer.beginExchange({ transport: 'sse', protocol: 'agui', method: 'POST', path: '/appended', tOffsetMs: 100000 });
const t0 = performance.now();
let n = 0;
setInterval(() => {
  for (let i = 0; i < 10; i++) {
    n++;
    writer.addMessage({
      exchangeId: ex, sender: 'server', carrier: 'event', tOffsetMs: 100000 + performance.now() - t0,
      raw: Buffer.from('data: {"n":' + n + '}\\n\\n'), json: { n }, verdict: { status: 'valid', findings: [] },
    });
  }
}, 1);
setInterval(() => process.stdout.write(n + ' ' + performance.now().toFixed(1) + '\\n'), 10);
`;

describe('kill -9 while appending', () => {
  it('keeps every earlier row and the recording row, and holds a prefix of the appended messages', async () => {
    ensureBuilt(tmp.dir);
    const file = join(tmp.dir, 'fixture.db');
    closedRecording(file);
    const before = snapshot(file);
    const script = join(tmp.dir, 'child.mjs');
    writeFileSync(script, CHILD(BUILT_WRITER_URL));

    const child = spawn(process.execPath, [script, file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    // Kill it once it has been appending for a while by its own clock.
    expect(await childHasRun(child, () => out, 200), `the child stopped early; stdout: ${out}; stderr: ${err}`).toBe(true);
    child.kill('SIGKILL');
    // Rows enqueued 100 ms before its last report had their 50 ms flush timer fire: timers run in due order.
    const reports = childReports(out);
    const mustHave = reports.filter(([, ms]) => ms <= reports[reports.length - 1][1] - 100).at(-1)?.[0] ?? 0;
    expect(mustHave).toBeGreaterThan(0);
    expect(await exited).toBe('SIGKILL');

    const check = new Database(file, { readonly: true });
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(check.pragma('foreign_key_check')).toEqual([]);
    check.close();

    const after = snapshot(file);
    // The recording row is untouched: the crashed append never reached close().
    expect(after.recording).toEqual(before.recording);
    expect(after.exchanges.slice(0, 2)).toEqual(before.exchanges);
    expect(after.messages.slice(0, 2)).toEqual(before.messages);
    expect(after.exchanges[2]).toMatchObject({ id: 3, path: '/appended', outcome: null });
    const appended = after.messages[2];
    expect(appended.length).toBeGreaterThanOrEqual(mustHave);
    appended.forEach((m, i) => {
      const k = i + 1;
      if (m.seq !== k || m.id !== 3 + k || m.raw.toString() !== `data: {"n":${k}}\n\n`) {
        throw new Error(`appended message ${k} is wrong: ${JSON.stringify({ seq: m.seq, id: m.id, raw: m.raw.toString() })}`);
      }
    });
    // The file can be appended to again after the crash.
    const w = RecordingWriter.append(file);
    expect(w.beginExchange({ transport: 'http', tOffsetMs: 0 })).toBe(4);
    w.close();
  });
});
