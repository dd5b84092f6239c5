/**
 * Every command that writes a file (record, import, export, replay --misses-out, record --json-log)
 * never leaves one half-made and never replaces one by accident: a start that fails leaves no file
 * (and the file it was to replace as it was), a failure halfway leaves no half file, and an existing
 * file is refused with a line that names --overwrite.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINE_PREFIX } from '../../src/core/program-name.js';
import { useCleanups } from '../support/cleanups.js';
import { AGUI_EXAMPLE, busyPort, exampleDb } from './cli-fixtures.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { runBatch } from './cli-batch.js';
import type { CliResult } from './run-cli.js';

useCleanups();

/**
 * Every run of this file goes through one batch of CLI runs (test/cli/cli-batch.ts), made before the
 * first test from the folders, files and busy ports each test sets up: a process each would cost
 * ~0.3 s of CPU apiece. The first run of each command (record, import, export, replay) is also made
 * as a process of its own, which must print the same. A test's steps run in the batch in its order.
 */
const steps = new Map<string, Array<() => Promise<string[]> | string[]>>();
const results = new Map<string, CliResult[]>();
const dirs: TempDir[] = [];

/** A folder of the test's own, kept until the file ends (the batch runs before the tests look). */
function scratch(): TempDir {
  const dir = tempDir();
  dirs.push(dir);
  return dir;
}

/** The test `name`'s runs, in order; each step sets up what its run needs, then names its arguments. */
function planned(name: string, ...runs: Array<() => Promise<string[]> | string[]>): void {
  steps.set(name, runs);
}

/** What the test's runs printed, in order. */
function ran(name: string): CliResult[] {
  const printed = results.get(name);
  expect(printed, name).toBeDefined();
  return printed!;
}

beforeAll(async () => {
  const argvs: string[][] = [];
  const owners: Array<[string, number]> = [];
  for (const [name, runs] of steps) {
    for (const run of runs) argvs.push(await run());
    owners.push([name, runs.length]);
  }
  const firsts = new Map<string, number>();
  argvs.forEach((args, i) => firsts.set(args[0], firsts.get(args[0]) ?? i));
  const printed = await runBatch(argvs, { real: [...firsts.values()] });
  let at = 0;
  for (const [name, count] of owners) {
    results.set(name, printed.slice(at, at + count));
    at += count;
  }
});

// The busy ports close after the first test (busyPort's cleanup): by then every run has ended.
afterAll(() => {
  for (const dir of dirs) dir.cleanup();
});

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
  {
    const name = 'on a busy --listen port leaves no recording file behind, so the retry is not refused';
    let dir: TempDir;
    let port: number;
    planned(name, async () => {
      dir = scratch();
      port = await busyPort();
      return ['record', '--target', 'http://127.0.0.1:9', '--listen', String(port), '--out', dir.file('run.db')];
    });
    it(name, () => {
      const [result] = ran(name);
      expect([result.code, result.stderr]).toEqual([2, inUse('--listen', port)]);
      expect(readdirSync(dir.dir)).toEqual([]);
    });
  }

  {
    const name = 'on a busy --ui port leaves no recording file behind either';
    let dir: TempDir;
    let port: number;
    planned(name, async () => {
      dir = scratch();
      port = await busyPort();
      return ['record', '--target', 'http://127.0.0.1:9', '--listen', '0', '--ui', String(port), '--out', dir.file('run.db')];
    });
    it(name, () => {
      const [result] = ran(name);
      expect([result.code, result.stderr]).toEqual([2, inUse('--ui', port)]);
      expect(readdirSync(dir.dir)).toEqual([]);
    });
  }

  {
    const name = 'with --overwrite and a busy port keeps the recording it was to replace, byte for byte';
    let dir: TempDir;
    let port: number;
    let old: string;
    let before: Buffer;
    planned(name, async () => {
      dir = scratch();
      old = exampleDb(dir, 'run.db');
      before = readFileSync(old);
      port = await busyPort();
      return ['record', '--target', 'http://127.0.0.1:9', '--listen', String(port), '--out', old, '--overwrite'];
    });
    it(name, () => {
      const [result] = ran(name);
      expect([result.code, result.stderr]).toEqual([2, inUse('--listen', port)]);
      expect(readFileSync(old).equals(before)).toBe(true);
      expect(readdirSync(dir.dir)).toEqual(['run.db']);
    });
  }

  {
    const name = '--ndjson whose --listen socket cannot be made leaves no recording file behind';
    let dir: TempDir;
    let socket: string;
    planned(name, () => {
      dir = scratch();
      socket = dir.file('no-such-folder/relay.sock');
      return ['record', '--ndjson', '--target', `unix:${dir.file('daemon.sock')}`, '--listen', `unix:${socket}`, '--out', dir.file('run.db')];
    });
    it(name, () => {
      const [result] = ran(name);
      expect([result.code, result.stderr]).toEqual([2, `${LINE_PREFIX}--listen unix:${socket}: cannot create the socket there (does its folder exist, and may we write to it?)\n`]);
      expect(readdirSync(dir.dir)).toEqual([]);
    });
  }

  {
    const name = 'refuses an existing recording with a line that names --overwrite, and leaves it as it was';
    let old: string;
    let before: Buffer;
    planned(name, () => {
      old = exampleDb(scratch(), 'run.db');
      before = readFileSync(old);
      return ['record', '--target', 'http://127.0.0.1:9', '--listen', '0', '--out', old];
    });
    it(name, () => {
      const [result] = ran(name);
      expect([result.code, result.stderr, result.stdout]).toEqual([2, refusal(old), '']);
      expect(readFileSync(old).equals(before)).toBe(true);
    });
  }

  {
    const name = '--stdio refuses an existing --json-log with a line that names --overwrite';
    let dir: TempDir;
    planned(name, () => {
      dir = scratch();
      writeFileSync(dir.file('log.ndjson'), '{"event":"from an earlier session"}\n');
      return ['record', '--stdio', '--out', dir.file('run.db'), '--json-log', dir.file('log.ndjson'), '--', 'true'];
    });
    it(name, () => {
      const [result] = ran(name);
      expect([result.code, result.stderr]).toEqual([2, refusal(dir.file('log.ndjson'))]);
      expect(readFileSync(dir.file('log.ndjson'), 'utf8')).toBe('{"event":"from an earlier session"}\n');
      expect(existsSync(dir.file('run.db'))).toBe(false);
    });
  }
});

describe('import', () => {
  {
    const name = 'of a truncated NDJSON leaves no half-written .db and no temporary file';
    let dir: TempDir;
    planned(name, () => {
      dir = scratch();
      return ['import', truncatedNdjson(dir.file('cut.ndjson')), '--out', dir.file('run.db')];
    });
    it(name, () => {
      const [result] = ran(name);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^agent-proxy: .*cut\.ndjson: not a recording \(line 4: cut short, not valid JSON: /);
      expect(readdirSync(dir.dir)).toEqual(['cut.ndjson']);
    });
  }

  {
    const name = 'with --overwrite and a truncated NDJSON keeps the recording it was to replace';
    let dir: TempDir;
    let old: string;
    let before: Buffer;
    planned(name, () => {
      dir = scratch();
      old = exampleDb(dir, 'run.db');
      before = readFileSync(old);
      return ['import', truncatedNdjson(dir.file('cut.ndjson')), '--out', old, '--overwrite'];
    });
    it(name, () => {
      const [result] = ran(name);
      expect(result.code).toBe(2);
      expect(readFileSync(old).equals(before)).toBe(true);
      expect(readdirSync(dir.dir).sort()).toEqual(['cut.ndjson', 'run.db']);
    });
  }

  {
    // The refusal and the replacement each on a file of its own: the runs are made before the test
    // looks, so the refused file is still there to be read as it was.
    const name = 'refuses an existing .db with a line that names --overwrite; with it, replaces it whole';
    let refusedDir: TempDir;
    let replacedDir: TempDir;
    let refusedOld: string;
    let replacedOld: string;
    planned(
      name,
      () => {
        refusedDir = scratch();
        refusedOld = exampleDb(refusedDir, 'run.db');
        writeFileSync(refusedOld, 'an earlier file');
        return ['import', AGUI_EXAMPLE, '--out', refusedOld];
      },
      () => {
        replacedDir = scratch();
        replacedOld = exampleDb(replacedDir, 'run.db');
        writeFileSync(replacedOld, 'an earlier file');
        return ['import', AGUI_EXAMPLE, '--out', replacedOld, '--overwrite'];
      },
      () => ['export', replacedOld, '--format', 'ndjson'],
    );
    it(name, () => {
      const [refused, replaced, exported] = ran(name);
      expect([refused.code, refused.stderr, refused.stdout]).toEqual([2, refusal(refusedOld), '']);
      expect(readFileSync(refusedOld, 'utf8')).toBe('an earlier file');
      expect([replaced.code, replaced.stderr]).toEqual([0, '']);
      expect(exported.stdout).toBe(readFileSync(AGUI_EXAMPLE, 'utf8'));
      expect(readdirSync(replacedDir.dir)).toEqual(['run.db']);
      expect(readdirSync(refusedDir.dir)).toEqual(['run.db']);
    });
  }
});

describe('export', () => {
  {
    const name = 'refuses to clobber an existing --out (a committed golden file) without --overwrite';
    let dir: TempDir;
    planned(name, () => {
      dir = scratch();
      writeFileSync(dir.file('golden.ndjson'), 'the committed golden file\n');
      return ['export', AGUI_EXAMPLE, '--format', 'ndjson', '--out', dir.file('golden.ndjson')];
    });
    it(name, () => {
      const [result] = ran(name);
      expect([result.code, result.stderr, result.stdout]).toEqual([2, refusal(dir.file('golden.ndjson')), '']);
      expect(readFileSync(dir.file('golden.ndjson'), 'utf8')).toBe('the committed golden file\n');
    });
  }

  {
    const name = 'with --overwrite replaces it, and leaves no temporary file';
    let dir: TempDir;
    planned(name, () => {
      dir = scratch();
      writeFileSync(dir.file('golden.har'), 'old\n');
      return ['export', AGUI_EXAMPLE, '--format', 'har', '--out', dir.file('golden.har'), '--overwrite'];
    });
    it(name, () => {
      const [result] = ran(name);
      expect([result.code, result.stderr]).toEqual([0, '']);
      expect(JSON.parse(readFileSync(dir.file('golden.har'), 'utf8')).log.version).toBe('1.2');
      expect(readdirSync(dir.dir)).toEqual(['golden.har']);
    });
  }

  {
    const name = 'of a recording found damaged halfway keeps the file --overwrite was to replace';
    let dir: TempDir;
    let damaged: string;
    planned(name, () => {
      dir = scratch();
      // A .db whose second exchange's message has a JSON column that does not parse: the export has
      // written the first exchange when it finds out.
      damaged = exampleDb(dir, 'damaged.db');
      const db = new Database(damaged);
      db.exec("UPDATE messages SET json = '{x' WHERE exchange_id = 2");
      db.close();
      writeFileSync(dir.file('golden.ndjson'), 'the committed golden file\n');
      return ['export', damaged, '--format', 'ndjson', '--out', dir.file('golden.ndjson'), '--overwrite'];
    });
    it(name, () => {
      const [result] = ran(name);
      expect(result.code).toBe(2);
      // V8 12 (Node 22 and later) adds " (line L column C)" to JSON.parse's message; the CLI passes it on.
      expect(result.stderr).toMatch(/^agent-proxy: .*damaged\.db: not a recording \(exchange 2 message 1: json is not JSON: Expected property name or '\}' in JSON at position 1(?: \(line 1 column 2\))?\)\n$/);
      expect(result.stderr.startsWith(`${LINE_PREFIX}${damaged}: `)).toBe(true);
      expect(readFileSync(dir.file('golden.ndjson'), 'utf8')).toBe('the committed golden file\n');
      expect(readdirSync(dir.dir).sort()).toEqual(['damaged.db', 'golden.ndjson']);
    });
  }
});

describe('replay --misses-out', () => {
  {
    const name = 'on a busy port leaves no misses file behind';
    let dir: TempDir;
    let port: number;
    planned(name, async () => {
      dir = scratch();
      port = await busyPort();
      return ['replay', AGUI_EXAMPLE, '--listen', String(port), '--on-miss', 'passthrough', '--target', 'http://127.0.0.1:9', '--misses-out', dir.file('misses.db')];
    });
    it(name, () => {
      const [result] = ran(name);
      expect([result.code, result.stderr]).toEqual([2, inUse('--listen', port)]);
      expect(readdirSync(dir.dir)).toEqual([]);
    });
  }

  {
    const name = 'refuses an existing misses file with a line that names --overwrite';
    let old: string;
    let before: Buffer;
    planned(name, () => {
      old = exampleDb(scratch(), 'misses.db');
      before = readFileSync(old);
      return ['replay', AGUI_EXAMPLE, '--listen', '0', '--on-miss', 'passthrough', '--target', 'http://127.0.0.1:9', '--misses-out', old];
    });
    it(name, () => {
      const [result] = ran(name);
      expect([result.code, result.stderr, result.stdout]).toEqual([2, refusal(old), '']);
      expect(readFileSync(old).equals(before)).toBe(true);
    });
  }
});
