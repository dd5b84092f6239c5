/**
 * Every command that writes a file (record, import, export, replay --misses-out, record --json-log)
 * never leaves one half-made and never replaces one by accident: a start that fails leaves no file
 * (and the file it was to replace as it was), a failure halfway leaves no half file, and an existing
 * file is refused with a line that names --overwrite.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { LINE_PREFIX } from '../../src/core/program-name.js';
import { runToEnd } from '../hostile/cli-child.js';
import { useCleanups } from '../support/cleanups.js';
import { AGUI_EXAMPLE, busyPort, exampleDb } from './cli-fixtures.js';
import { scratch } from '../support/temp-dir.js';

useCleanups();

const refusal = (file: string) => `${LINE_PREFIX}${file} already exists; add --overwrite to replace it, or choose another file\n`;
const inUse = (flag: string, port: number) => `${LINE_PREFIX}${flag} 127.0.0.1:${port}: the address is in use (another process listens there; choose another port, or 0 for a free one)\n`;

/** The example recording cut inside its fourth line: valid up to there, then broken JSON. */
function truncatedNdjson(file: string): string {
  const text = readFileSync(AGUI_EXAMPLE, 'utf8');
  const lines = text.split('\n');
  writeFileSync(file, lines.slice(0, 3).join('\n') + '\n' + lines[3].slice(0, 40));
  return file;
}

describe('record', () => {
  it('on a busy --listen port leaves no recording file behind, so the retry is not refused', async () => {
    const dir = scratch();
    const port = await busyPort();
    const result = await runToEnd(['record', '--target', 'http://127.0.0.1:9', '--listen', String(port), '--out', dir.file('run.db')]);
    expect([result.code, result.stderr]).toEqual([2, inUse('--listen', port)]);
    expect(readdirSync(dir.dir)).toEqual([]);
  });

  it('on a busy --ui port leaves no recording file behind either', async () => {
    const dir = scratch();
    const port = await busyPort();
    const result = await runToEnd(['record', '--target', 'http://127.0.0.1:9', '--listen', '0', '--ui', String(port), '--out', dir.file('run.db')]);
    expect([result.code, result.stderr]).toEqual([2, inUse('--ui', port)]);
    expect(readdirSync(dir.dir)).toEqual([]);
  });

  it('with --overwrite and a busy port keeps the recording it was to replace, byte for byte', async () => {
    const dir = scratch();
    const old = exampleDb(dir, 'run.db');
    const before = readFileSync(old);
    const port = await busyPort();
    const result = await runToEnd(['record', '--target', 'http://127.0.0.1:9', '--listen', String(port), '--out', old, '--overwrite']);
    expect([result.code, result.stderr]).toEqual([2, inUse('--listen', port)]);
    expect(readFileSync(old).equals(before)).toBe(true);
    expect(readdirSync(dir.dir)).toEqual(['run.db']);
  });

  it('--ndjson whose --listen socket cannot be made leaves no recording file behind', async () => {
    const dir = scratch();
    const socket = dir.file('no-such-folder/relay.sock');
    const result = await runToEnd(['record', '--ndjson', '--target', `unix:${dir.file('daemon.sock')}`, '--listen', `unix:${socket}`, '--out', dir.file('run.db')]);
    expect([result.code, result.stderr]).toEqual([2, `${LINE_PREFIX}--listen unix:${socket}: cannot create the socket there (does its folder exist, and may we write to it?)\n`]);
    expect(readdirSync(dir.dir)).toEqual([]);
  });

  it('refuses an existing recording with a line that names --overwrite, and leaves it as it was', async () => {
    const dir = scratch();
    const old = exampleDb(dir, 'run.db');
    const before = readFileSync(old);
    const result = await runToEnd(['record', '--target', 'http://127.0.0.1:9', '--listen', '0', '--out', old]);
    expect([result.code, result.stderr, result.stdout]).toEqual([2, refusal(old), '']);
    expect(readFileSync(old).equals(before)).toBe(true);
  });

  it('--stdio refuses an existing --json-log with a line that names --overwrite', async () => {
    const dir = scratch();
    writeFileSync(dir.file('log.ndjson'), '{"event":"from an earlier session"}\n');
    const result = await runToEnd(['record', '--stdio', '--out', dir.file('run.db'), '--json-log', dir.file('log.ndjson'), '--', 'true']);
    expect([result.code, result.stderr]).toEqual([2, refusal(dir.file('log.ndjson'))]);
    expect(readFileSync(dir.file('log.ndjson'), 'utf8')).toBe('{"event":"from an earlier session"}\n');
    expect(existsSync(dir.file('run.db'))).toBe(false);
  });
});

describe('import', () => {
  it('of a truncated NDJSON leaves no half-written .db and no temporary file', async () => {
    const dir = scratch();
    const input = truncatedNdjson(dir.file('cut.ndjson'));
    const result = await runToEnd(['import', input, '--out', dir.file('run.db')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^agent-proxy: .*cut\.ndjson: not a recording \(line 4: cut short, not valid JSON: /);
    expect(readdirSync(dir.dir)).toEqual(['cut.ndjson']);
  });

  it('with --overwrite and a truncated NDJSON keeps the recording it was to replace', async () => {
    const dir = scratch();
    const old = exampleDb(dir, 'run.db');
    const before = readFileSync(old);
    const result = await runToEnd(['import', truncatedNdjson(dir.file('cut.ndjson')), '--out', old, '--overwrite']);
    expect(result.code).toBe(2);
    expect(readFileSync(old).equals(before)).toBe(true);
    expect(readdirSync(dir.dir).sort()).toEqual(['cut.ndjson', 'run.db']);
  });

  it('refuses an existing .db with a line that names --overwrite; with it, replaces it whole', async () => {
    const dir = scratch();
    const old = exampleDb(dir, 'run.db');
    writeFileSync(old, 'an earlier file');
    const refused = await runToEnd(['import', AGUI_EXAMPLE, '--out', old]);
    expect([refused.code, refused.stderr, refused.stdout]).toEqual([2, refusal(old), '']);
    expect(readFileSync(old, 'utf8')).toBe('an earlier file');
    const replaced = await runToEnd(['import', AGUI_EXAMPLE, '--out', old, '--overwrite']);
    expect([replaced.code, replaced.stderr]).toEqual([0, '']);
    expect((await runToEnd(['export', old, '--format', 'ndjson'])).stdout).toBe(readFileSync(AGUI_EXAMPLE, 'utf8'));
    expect(readdirSync(dir.dir)).toEqual(['run.db']);
  });
});

describe('export', () => {
  it('refuses to clobber an existing --out (a committed golden file) without --overwrite', async () => {
    const dir = scratch();
    writeFileSync(dir.file('golden.ndjson'), 'the committed golden file\n');
    const result = await runToEnd(['export', AGUI_EXAMPLE, '--format', 'ndjson', '--out', dir.file('golden.ndjson')]);
    expect([result.code, result.stderr, result.stdout]).toEqual([2, refusal(dir.file('golden.ndjson')), '']);
    expect(readFileSync(dir.file('golden.ndjson'), 'utf8')).toBe('the committed golden file\n');
  });

  it('with --overwrite replaces it, and leaves no temporary file', async () => {
    const dir = scratch();
    writeFileSync(dir.file('golden.har'), 'old\n');
    const result = await runToEnd(['export', AGUI_EXAMPLE, '--format', 'har', '--out', dir.file('golden.har'), '--overwrite']);
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(JSON.parse(readFileSync(dir.file('golden.har'), 'utf8')).log.version).toBe('1.2');
    expect(readdirSync(dir.dir)).toEqual(['golden.har']);
  });

  it('of a recording found damaged halfway keeps the file --overwrite was to replace', async () => {
    const dir = scratch();
    // A .db whose second exchange's message has a JSON column that does not parse: the export has
    // written the first exchange when it finds out.
    const damaged = exampleDb(dir, 'damaged.db');
    const db = new Database(damaged);
    db.exec("UPDATE messages SET json = '{x' WHERE exchange_id = 2");
    db.close();
    writeFileSync(dir.file('golden.ndjson'), 'the committed golden file\n');
    const result = await runToEnd(['export', damaged, '--format', 'ndjson', '--out', dir.file('golden.ndjson'), '--overwrite']);
    expect(result.code).toBe(2);
    // V8 12 (Node 22 and later) adds " (line L column C)" to JSON.parse's message; the CLI passes it on.
    expect(result.stderr).toMatch(/^agent-proxy: .*damaged\.db: not a recording \(exchange 2 message 1: json is not JSON: Expected property name or '\}' in JSON at position 1(?: \(line 1 column 2\))?\)\n$/);
    expect(result.stderr.startsWith(`${LINE_PREFIX}${damaged}: `)).toBe(true);
    expect(readFileSync(dir.file('golden.ndjson'), 'utf8')).toBe('the committed golden file\n');
    expect(readdirSync(dir.dir).sort()).toEqual(['damaged.db', 'golden.ndjson']);
  });
});

describe('replay --misses-out', () => {
  it('on a busy port leaves no misses file behind', async () => {
    const dir = scratch();
    const port = await busyPort();
    const result = await runToEnd(['replay', AGUI_EXAMPLE, '--listen', String(port), '--on-miss', 'passthrough', '--target', 'http://127.0.0.1:9', '--misses-out', dir.file('misses.db')]);
    expect([result.code, result.stderr]).toEqual([2, inUse('--listen', port)]);
    expect(readdirSync(dir.dir)).toEqual([]);
  });

  it('refuses an existing misses file with a line that names --overwrite', async () => {
    const dir = scratch();
    const old = exampleDb(dir, 'misses.db');
    const before = readFileSync(old);
    const result = await runToEnd(['replay', AGUI_EXAMPLE, '--listen', '0', '--on-miss', 'passthrough', '--target', 'http://127.0.0.1:9', '--misses-out', old]);
    expect([result.code, result.stderr, result.stdout]).toEqual([2, refusal(old), '']);
    expect(readFileSync(old).equals(before)).toBe(true);
  });
});
