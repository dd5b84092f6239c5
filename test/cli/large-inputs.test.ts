/**
 * Commands on inputs far larger than a test stream: every message or exchange handled, none lost to
 * the argument limit of push() or Math.max() (spreading ~120k items into a call overflows the stack).
 */
import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, runCli } from './run-cli.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { renderText } from '../../src/diff/render-text.js';
import type { DiffReport, MessageDiff } from '../../src/diff/diff-report.js';
import { styleFor } from '../../src/core/style.js';
import { LONG_READ } from '../../src/cli/progress-line.js';
import { tempDir } from '../support/temp-dir.js';

const folder = tempDir('agent-proxy-large-');
afterAll(() => folder.cleanup());
const tmp = folder.dir;

/** Past the size where a spread argument list overflows the stack (about 120k on Node 20). */
const MANY = 200_000;
/** Enough exchanges to overflow a spread too, fewer to keep the recording quick to write. */
const EXCHANGES = 130_000;

const SCRIPT = '/usr/bin/script';

/** What a shell command writes to the terminal script(1) gives it. */
function runOnTerminal(command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(SCRIPT, ['-qec', command, '/dev/null'], { env: cliEnv(), maxBuffer: 64 << 20 }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
  });
}

/** One AG-UI run whose text message has `deltas` one-character chunks, as NDJSON. */
function longRun(deltas: number): string {
  const lines = ['{"type":"RUN_STARTED","threadId":"t","runId":"r"}', '{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}'];
  const delta = '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}';
  for (let i = 0; i < deltas; i++) lines.push(delta);
  lines.push('{"type":"TEXT_MESSAGE_END","messageId":"m"}', '{"type":"RUN_FINISHED","threadId":"t","runId":"r"}');
  return lines.join('\n') + '\n';
}

describe('large inputs', () => {
  it(`validate judges a stream of ${MANY} messages`, async () => {
    const file = join(tmp, 'long-run.ndjson');
    writeFileSync(file, longRun(MANY));
    const r = await runCli(['validate', file]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${MANY + 4} messages (agui): ${MANY + 4} valid, 0 invalid, 0 unchecked; 0 errors, 0 warnings\n`);
  }, 120_000);

  // script(1) gives the command a terminal; stdout goes to /dev/null, so what it captures is stderr.
  // The line is drawn from LONG_READ messages on: an input just past it (LONG_READ + 4) draws all of
  // its 100 steps, at half the CPU of the 200,004 above; --json on the same input draws none.
  it.skipIf(!existsSync(SCRIPT))(`validate of ${LONG_READ + 4} messages says how far it is when stderr is a terminal, and not with --json`, async () => {
    const file = join(tmp, 'long-enough.ndjson');
    writeFileSync(file, longRun(LONG_READ));
    const onTerminal = (args: string) => runOnTerminal(`${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} validate ${JSON.stringify(file)} ${args} > /dev/null`);
    const lines = (await onTerminal('')).split('\r').filter(Boolean);
    expect(lines[0]).toBe(`validating messages: 1,000 of 100,004 (0%)\x1b[K`);
    expect(lines).toHaveLength(101);
    expect(lines.at(-2)).toBe(`validating messages: 100,000 of 100,004 (99%)\x1b[K`);
    expect(lines.at(-1)).toBe('\x1b[K');
    expect(await onTerminal('--json')).toBe('');
  }, 120_000);

  it(`show lists a recording of ${EXCHANGES} exchanges`, async () => {
    const file = join(tmp, 'many-exchanges.db');
    const writer = RecordingWriter.open(file, { toolVersion: 'test', mode: 'record', schemaHashes: {}, startedAt: new Date('2026-01-01T00:00:00Z') });
    for (let i = 0; i < EXCHANGES; i++) {
      const id = writer.beginExchange({ transport: 'http', method: 'GET', path: '/health', tOffsetMs: i });
      writer.endExchange(id, { outcome: 'complete', tOffsetMs: i + 0.5 });
    }
    writer.close();
    const r = await runCli(['show', file]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(EXCHANGES + 3);
    expect(lines[EXCHANGES + 1]).toMatch(new RegExp(`^#${EXCHANGES}\\s+http\\s+GET /health`));
  }, 120_000);

  it(`the text diff renders an exchange with ${MANY} changed messages`, () => {
    const ref = (seq: number) => ({ seq, sender: 'server' as const, label: 'TEXT_MESSAGE_CONTENT', status: 'valid' as const });
    const messages: MessageDiff[] = Array.from({ length: MANY }, (_, i) => ({
      change: 'changed',
      a: ref(i + 1),
      b: ref(i + 1),
      differences: [{ pointer: '/delta', a: 'x', b: 'y' }],
      before: null,
      after: null,
    }));
    const exchange = { id: 1, transport: 'sse' as const, protocol: 'agui', method: 'POST', path: '/agent', status: 200 };
    const report: DiffReport = {
      format: 'agent-proxy/diff',
      version: 1,
      a: { file: 'a.db', exchanges: 1, messages: MANY },
      b: { file: 'b.db', exchanges: 1, messages: MANY },
      options: { semantic: false, ignore: [], verdicts: 'recorded' },
      equal: false,
      summary: { exchanges: { equal: 0, changed: 1, added: 0, removed: 0 }, messages: { changed: MANY, added: 0, removed: 0 }, regressions: 0, fixes: 0 },
      exchanges: [{ change: 'changed', a: exchange, b: exchange, fields: [], messages }],
    };
    const text = renderText(report, styleFor({ isTTY: false } as NodeJS.WriteStream));
    expect(text.split('\n')).toHaveLength(2 + 1 + 2 * MANY + 1 + 1);
    expect(text).toContain(`~ ${MANY} ← TEXT_MESSAGE_CONTENT`);
  });
});

describe('validate --json in pieces', () => {
  it('writes the same text as JSON.stringify of the report, in chunks of bounded size, waiting when told to', async () => {
    const { writeReportJson } = await import('../../src/validate/report-json.js');
    const messages = Array.from({ length: 30_000 }, (_, index) => ({
      index,
      line: index + 1,
      stream: 'f.ndjson',
      protocol: 'agui' as const,
      sender: 'server' as const,
      label: 'TEXT_MESSAGE_CONTENT',
      verdict: { status: 'valid' as const, findings: [], schemaRef: 'https://ag-ui.com/spec/draft/schema.json#/$defs/TextMessageContentEvent' },
    }));
    const report = { file: 'f.ndjson', format: 'ndjson' as const, protocols: ['agui' as const], messages, summary: { messages: 30_000, valid: 30_000, invalid: 0, unchecked: 0, errors: 0, warnings: 0 } };
    const chunks: string[] = [];
    let waits = 0;
    await writeReportJson(report, (text) => {
      chunks.push(text);
      return chunks.length % 2 === 0 ? Promise.resolve().then(() => void waits++) : true;
    });
    expect(chunks.join('')).toBe(JSON.stringify(report) + '\n');
    expect(chunks.length).toBeGreaterThan(2);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(2 * (1 << 20));
    expect(waits).toBeGreaterThan(0);
  });
});
