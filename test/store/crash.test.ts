import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { BUILT_WRITER_URL, ensureBuilt } from './built-writer.js';
import { childHasRun, childReports } from './store-fixtures.js';
import { tempDir } from '../support/temp-dir.js';


/** The child: one SSE exchange, 10 messages per millisecond, reports `<enqueued> <ms>` every 10 ms. */
const CHILD = (writerUrl: string) => `
import { RecordingWriter } from ${JSON.stringify(writerUrl)};
const file = process.argv[2];
const writer = RecordingWriter.open(file, {
  toolVersion: 'crash-test', mode: 'record', schemaHashes: {}, startedAt: new Date(),
}, { flushIntervalMs: 50 });
const ex = writer.beginExchange({ transport: 'sse', protocol: 'agui', method: 'POST', path: '/run', tOffsetMs: 0 });
const t0 = performance.now();
let n = 0;
setInterval(() => {
  for (let i = 0; i < 10; i++) {
    n++;
    writer.addMessage({
      exchangeId: ex, sender: 'server', carrier: 'event', tOffsetMs: performance.now() - t0,
      raw: Buffer.from('data: {"n":' + n + '}\\n\\n'), json: { n },
      verdict: n % 7 === 0
        ? { status: 'invalid', findings: [{ rule: 'test.seven', severity: 'error', pointer: '/n', message: 'multiple of 7' }] }
        : { status: 'valid', findings: [] },
    });
  }
}, 1);
setInterval(() => process.stdout.write(n + ' ' + performance.now().toFixed(1) + '\\n'), 10);
`;

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir();
  ensureBuilt(tmp.dir);
}, 120_000);
afterAll(() => tmp.cleanup());

describe('kill -9 while recording a stream', () => {
  it('leaves a file that opens cleanly and holds a prefix of what was enqueued, minus at most the last interval', async () => {
    const script = join(tmp.dir, 'child.mjs');
    const file = join(tmp.dir, 'killed.sqlite');
    writeFileSync(script, CHILD(BUILT_WRITER_URL));

    const child = spawn(process.execPath, [script, file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));

    // Kill it once it has been recording for a while by its own clock.
    expect(await childHasRun(child, () => out, 300), `the child stopped early; stdout: ${out}; stderr: ${err}`).toBe(true);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const reports = childReports(out);
    const [lastCount, lastMs] = reports[reports.length - 1];
    // Every row enqueued 100 ms before the child's last report has had its 50 ms flush timer fire:
    // timers run in due order, so that report could not have been printed otherwise.
    const mustHave = reports.filter(([, ms]) => ms <= lastMs - 100).at(-1)?.[0] ?? 0;
    expect(mustHave).toBeGreaterThan(0);

    const check = new Database(file, { readonly: true });
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(check.pragma('foreign_key_check')).toEqual([]);
    // Messages move into blocks only when the writer closes (store/raw-block-compaction.ts): every row is plain.
    expect(check.prepare('SELECT (SELECT count(*) FROM raw_blocks) + (SELECT count(*) FROM messages WHERE raw_block IS NOT NULL)').pluck().get()).toBe(0);
    check.close();

    const reader = RecordingReader.open(file);
    try {
      expect(reader.recording().endedAt).toBeUndefined();
      const [exchange] = reader.exchanges();
      expect(exchange).toMatchObject({ id: 1, transport: 'sse', outcome: null });
      const messages = reader.messages(1);
      const n = messages.length;
      expect(n).toBeGreaterThan(0);
      // How much the kill cost, said only when it cost too much.
      expect(n, `kill -9: enqueued ≥ ${lastCount}, stored ${n}, required ≥ ${mustHave}`).toBeGreaterThanOrEqual(mustHave);
      // A prefix, in order, with the right content.
      messages.forEach((m, i) => {
        const k = i + 1;
        if (m.seq !== k || m.id !== k || m.raw.toString() !== `data: {"n":${k}}\n\n` || (m.json as { n: number }).n !== k) {
          throw new Error(`message ${k} is wrong: ${JSON.stringify({ seq: m.seq, id: m.id, raw: m.raw.toString(), json: m.json })}`);
        }
        expect(m.verdict.status).toBe(k % 7 === 0 ? 'invalid' : 'valid');
      });
      expect(reader.totals()).toEqual({ exchanges: 1, messages: n, invalid: Math.floor(n / 7), findings: Math.floor(n / 7) });
    } finally {
      reader.close();
    }
  });
});
