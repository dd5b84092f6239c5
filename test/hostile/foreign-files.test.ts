/**
 * Files that are not recordings, or damaged ones, given to every command that reads a recording:
 * each answers with one `agent-proxy: <file>: …` line naming what is wrong (the line, the field, the
 * exchange), exits 2, leaves nothing behind, and the same command on a good recording still works.
 * Also: a better-sqlite3 built for another Node.js is explained in one line.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeModuleProblem } from '../../src/store/native-module.js';
import { FORMAT_VERSION } from '../../src/store/migrations.js';
import { NDJSON_VERSION } from '../../src/store/ndjson-format.js';
import { importNdjsonFile } from '../../src/store/ndjson-import.js';
import { runBatch } from '../cli/cli-batch.js';
import { REPO, type CliResult } from '../cli/run-cli.js';
import { runToEnd } from './cli-child.js';
import { linkedCopy } from '../support/linked-copy.js';
import { scratch, tempDir, type TempDir } from '../support/temp-dir.js';
import { useCleanups } from '../support/cleanups.js';

useCleanups();

const GOOD = `${REPO}/recordings/examples/agui-sse-run.ndjson`;

/** The example recording's lines, each parsed, for making damaged copies. */
function goodLines(): Array<Record<string, unknown>> {
  return readFileSync(GOOD, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Where the first message line is (after every exchange line). */
function firstMessageLine(lines: Array<Record<string, unknown>>): number {
  return lines.findIndex((l) => l.type === 'message');
}

function ndjson(lines: Array<Record<string, unknown>>): string {
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

/** The example imported into a .db once for the file: each damaged copy starts from its bytes. */
let imported: string | undefined;
const importedDir = tempDir('agent-proxy-foreign-good-');
afterAll(() => importedDir.cleanup());

/** A good .db copy of the example, for damaging with SQL (imported in this process: the CLI's import is the control's). */
function goodDb(dir: ReturnType<typeof scratch>, name: string): string {
  if (imported === undefined) {
    const file = importedDir.file('good.db');
    importNdjsonFile(GOOD, file);
    imported = file;
  }
  const file = dir.file(name);
  copyFileSync(imported, file);
  return file;
}

function sql(file: string, statements: string): void {
  const db = new Database(file);
  db.exec(statements);
  db.close();
}

/** Each command that reads a recording, run on `file`; `out` is a path import may write. */
function commands(file: string, out: string): Record<string, string[]> {
  return {
    show: ['show', file],
    export: ['export', file, '--format', 'ndjson'],
    replay: ['replay', file, '--listen', '0', '--timing', 'none'],
    diff: ['diff', GOOD, file],
    validate: ['validate', file],
    view: ['view', file, '--listen', '0'],
    import: ['import', file, '--out', out],
  };
}

function expectOneLine(result: CliResult, what: string, pattern: RegExp): void {
  expect(result.code, `${what}: ${result.stderr}`).toBe(2);
  expect(result.stdout, what).toBe('');
  const lines = result.stderr.split('\n');
  expect(lines, `${what}: ${result.stderr}`).toHaveLength(2);
  expect(lines[1], what).toBe('');
  expect(lines[0], what).toMatch(/^agent-proxy: /);
  expect(lines[0], what).toMatch(pattern);
  expect(lines[0], what).not.toMatch(/\n|    at |RangeError|TypeError|undefined/);
}

interface Case {
  name: string;
  make(dir: ReturnType<typeof scratch>): string;
  /** What every command that reads a recording says, after the file name. */
  says: RegExp;
  /** What `import` says, when it differs (import reads only the NDJSON form). */
  importSays?: RegExp;
  /** What `validate` says, when it differs (validate also reads plain message files). */
  validateSays?: RegExp;
}

const esc = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const CASES: Case[] = [
  {
    name: 'an empty file',
    make: (dir) => (writeFileSync(dir.file('empty.db'), ''), dir.file('empty.db')),
    says: /: not a recording \(the file is empty\)$/,
    importSays: /: not a recording \(the file holds no lines\)$/,
    validateSays: /: the file holds no messages$/,
  },
  {
    name: 'a text file',
    make: (dir) => (writeFileSync(dir.file('notes.txt'), 'hello world\nsecond line\n'), dir.file('notes.txt')),
    says: /: not a recording \(text, but a recording is an agent-proxy \.db, or NDJSON whose first line is \{"type":"recording","format":"agent-proxy\/ndjson",…\}\)$/,
    importSays: /: not a recording \(line 1: not valid JSON: /,
    validateSays: /notes\.txt:1: not valid JSON: /,
  },
  {
    name: 'a JSON object that is no recording',
    make: (dir) => (writeFileSync(dir.file('config.json'), '{"port": 8080, "debug": true}\n'), dir.file('config.json')),
    says: /: not a recording \(JSON, but a recording is an agent-proxy \.db, or NDJSON whose first line is \{"type":"recording",.*; validate checks a file of protocol messages\)$/,
    importSays: /: not a recording \(line 1: the first line must be \{"type":"recording","format":"agent-proxy\/ndjson",…\}\)$/,
    // A JSON object could be a message, but no protocol recognises this one: nothing checked is exit 2, not a pass.
    validateSays: /config\.json: no known protocol recognises its message, so nothing was checked; name the protocol with --protocol \(/,
  },
  {
    name: 'random binary data',
    make: (dir) => {
      const bytes = Buffer.alloc(4096);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919 + 13) % 256;
      writeFileSync(dir.file('blob.bin'), bytes);
      return dir.file('blob.bin');
    },
    says: /: not a recording \(binary data: neither an SQLite recording nor NDJSON text\)$/,
    importSays: /: not a recording \(binary data, not NDJSON text\)$/,
    validateSays: /: binary data, not messages \(a JSON array, NDJSON, an SSE body, a capture or a recording\)$/,
  },
  {
    name: 'an NDJSON recording cut short',
    make: (dir) => {
      const text = readFileSync(GOOD, 'utf8');
      const cut = text.slice(0, text.indexOf('\n', text.indexOf('\n') + 1) + 200);
      writeFileSync(dir.file('cut.ndjson'), cut);
      return dir.file('cut.ndjson');
    },
    // V8 12 (Node 22 and later) adds " (line L column C)" to JSON.parse's message; the CLI passes it on.
    says: /: not a recording \(line 3: cut short, not valid JSON: Unterminated string in JSON at position \d+(?: \(line 1 column \d+\))?\)$/,
  },
  {
    name: 'startedAt: "soon"',
    make: (dir) => {
      const lines = goodLines();
      lines[0].startedAt = 'soon';
      writeFileSync(dir.file('soon.ndjson'), ndjson(lines));
      return dir.file('soon.ndjson');
    },
    says: /: not a recording \(line 1: "startedAt" must be an ISO 8601 date, not "soon"\)$/,
  },
  {
    name: 'format version 999',
    make: (dir) => {
      const lines = goodLines();
      lines[0].version = 999;
      writeFileSync(dir.file('future.ndjson'), ndjson(lines));
      return dir.file('future.ndjson');
    },
    says: new RegExp(` is NDJSON recording version 999, but this agent-proxy reads versions up to ${NDJSON_VERSION}; upgrade agent-proxy to read it \\(line 1\\)$`),
  },
  {
    name: 'an exchange line with a string status',
    make: (dir) => {
      const lines = goodLines();
      lines[1].status = '200';
      writeFileSync(dir.file('status.ndjson'), ndjson(lines));
      return dir.file('status.ndjson');
    },
    says: /: not a recording \(line 2: "status" must be a whole number or null, not "200"\)$/,
  },
  {
    name: 'a message line before any exchange line',
    make: (dir) => {
      const lines = goodLines();
      const first = firstMessageLine(lines);
      writeFileSync(dir.file('early.ndjson'), ndjson([lines[0], lines[first], ...lines.slice(1, first), ...lines.slice(first + 1)]));
      return dir.file('early.ndjson');
    },
    says: /: not a recording \(line 2: message of exchange 1, which no earlier line declares\)$/,
  },
  {
    name: 'a message line without its verdict status',
    make: (dir) => {
      const lines = goodLines();
      const first = firstMessageLine(lines);
      // A version 3 line may leave a plain valid verdict out; one that is written needs its status.
      lines[first].verdict = { findings: [] };
      writeFileSync(dir.file('verdict.ndjson'), ndjson(lines.slice(0, first + 1)));
      return dir.file('verdict.ndjson');
    },
    says: /: not a recording \(line 4: "verdict\.status" is missing\)$/,
  },
  {
    name: "another application's SQLite file",
    make: (dir) => {
      sql(dir.file('app.sqlite'), "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users VALUES (1, 'a');");
      return dir.file('app.sqlite');
    },
    says: /: not a recording \(an SQLite database of another kind, with tables users\)$/,
    importSays: /: not an NDJSON recording but an SQLite file; import reads what export --format ndjson writes \(a \.db recording needs no import\)$/,
  },
  {
    name: 'an SQLite file with the recording tables but not their columns',
    make: (dir) => {
      sql(dir.file('shape.db'), 'CREATE TABLE recording (id INTEGER PRIMARY KEY); CREATE TABLE exchanges (id INTEGER PRIMARY KEY); CREATE TABLE messages (id INTEGER PRIMARY KEY); CREATE TABLE findings (id INTEGER PRIMARY KEY); INSERT INTO recording VALUES (1); PRAGMA user_version = 1;');
      return dir.file('shape.db');
    },
    says: /: not a recording \(missing columns: recording\.format_version, recording\.tool_version, recording\.target and \d+ more\)$/,
    importSays: /: not an NDJSON recording but an SQLite file/,
  },
  {
    name: 'a .db cut short (a copy that stopped halfway)',
    make: (dir) => {
      const file = goodDb(dir, 'cut.db');
      const bytes = readFileSync(file);
      writeFileSync(file, bytes.subarray(0, Math.floor(bytes.length / 2)));
      return file;
    },
    says: /cut\.db: not a recording \(an SQLite database cut short: its header declares \d+ bytes, the file holds \d+\)$/,
    importSays: /: not an NDJSON recording but an SQLite file/,
  },
  {
    name: 'a .db of a future format (user_version 99)',
    make: (dir) => {
      const file = goodDb(dir, 'future.db');
      sql(file, 'PRAGMA user_version = 99;');
      return file;
    },
    says: new RegExp(` is recording format 99, but this agent-proxy reads formats up to ${FORMAT_VERSION}; upgrade agent-proxy to open it$`),
    importSays: /: not an NDJSON recording but an SQLite file/,
  },
];

/** A later describe block's runs in the file's one batch: its files are written when the batch is made. */
interface Later {
  runs: string[][];
  /** Indexes into runs of those also made as processes of their own. */
  real: number[];
  results?: CliResult[];
}

/** The damaged .db files (stored JSON that does not parse) and every reading command on them. */
function damagedRuns(dir: TempDir): Later & { partial: string } {
  const headers = goodDb(dir, 'headers.db');
  sql(headers, "UPDATE exchanges SET request_headers = '{a' WHERE id = 1;");
  const json = goodDb(dir, 'json.db');
  sql(json, "UPDATE messages SET json = '{x' WHERE exchange_id = 1 AND seq = 3;");
  const partial = dir.file('partial.ndjson');
  const hashes = goodDb(dir, 'hashes.db');
  sql(hashes, "UPDATE recording SET schema_hashes = 'nope';");
  const runs = [
    ['show', headers],
    ['export', headers, '--format', 'ndjson'],
    ['replay', headers, '--listen', '0'],
    ['diff', GOOD, headers],
    ['show', json, '--exchange', '1'],
    ['replay', json, '--listen', '0'],
    ['diff', GOOD, json],
    ['export', hashes, '--format', 'ndjson'],
    ['export', json, '--format', 'ndjson', '--out', partial],
  ];
  // The last, which writes a file, also as a process of its own.
  return { runs, real: [8], partial };
}

/** validate's malformed captures, each of which names the record and the field. */
const MALFORMED: Array<[string, unknown, RegExp]> = [
  ['null-record.json', { records: [null] }, /null-record\.json: not a capture \(record 1 is not an object\)$/],
  ['no-request.json', { records: [{ dir: 'in', msg: {} }, { kind: 'http' }] }, /no-request\.json: not a capture \(record 2: an http record needs "request"\)$/],
  ['path.json', { records: [{ kind: 'http', request: { method: 'GET', path: 5 }, response: { status: 200 } }] }, /path\.json: not a capture \(record 1: "request\.path" must be a string\)$/],
];

/** validate on each malformed capture, then on the control, a well-formed capture of the same shape. */
function malformedRuns(dir: TempDir): Later {
  for (const [name, doc] of MALFORMED) writeFileSync(dir.file(name), JSON.stringify(doc));
  // The control: judged (its protocol named: by itself, `{}` is recognised by none, and a validate that checks nothing exits 2).
  writeFileSync(dir.file('ok.json'), JSON.stringify({ records: [{ kind: 'http', request: { method: 'GET', path: '/v1/capabilities' }, response: { status: 200, body: {} } }] }));
  return { runs: [...MALFORMED.map(([name]) => ['validate', dir.file(name)]), ['validate', '--protocol', 'pi-rest', dir.file('ok.json')]], real: [0] };
}

let damaged: (Later & { partial: string }) | undefined;
let malformed: Later | undefined;
const batchFolders: TempDir[] = [];
afterAll(() => {
  for (const folder of batchFolders) folder.cleanup();
});

// Every case's file, and every command on it, in one batch of CLI runs (test/cli/cli-batch.ts),
// made before the first test: a process each would cost ~0.3 s of CPU apiece, mostly starting.
// Every command on the first case also runs as a process of its own, which must print the same.
// The control's commands on the good recording follow, then the runs of the damaged .db files and of
// validate's malformed captures (their describe blocks below check them, and make it if no test
// before them did).
interface Made {
  file: string;
  out: string;
  before: Buffer;
  results: Array<{ name: string; result: CliResult }>;
}
const made = new Map<Case, Made>();
/** The control: what each command (but the servers) did with the good recording, and where import wrote. */
const control = { out: '', results: [] as Array<{ name: string; result: CliResult }> };
let batch: Promise<void> | undefined;

function fileBatch(): Promise<void> {
  return (batch ??= makeBatch());
}

async function makeBatch(): Promise<void> {
  const runs: Array<{ c: Case; name: string; args: string[] }> = [];
  for (const c of CASES) {
    const dir = batchFolder();
    const file = c.make(dir);
    const out = dir.file('imported.db');
    made.set(c, { file, out, before: readFileSync(file), results: [] });
    for (const [name, args] of Object.entries(commands(file, out))) runs.push({ c, name, args });
  }
  const firstCase = runs.filter((run) => run.c === CASES[0]).map((_, at) => at);
  control.out = batchFolder().file('good.db');
  const controlRuns = Object.entries(commands(GOOD, control.out)).filter(([name]) => name !== 'replay' && name !== 'view');
  const later = [(damaged = damagedRuns(batchFolder())), (malformed = malformedRuns(batchFolder()))];
  const all = [...runs.map((run) => run.args), ...controlRuns.map(([, args]) => args)];
  const real = [...firstCase];
  for (const part of later) {
    real.push(...part.real.map((at) => all.length + at));
    all.push(...part.runs);
  }
  const results = await runBatch(all, { real });
  runs.forEach((run, i) => made.get(run.c)!.results.push({ name: run.name, result: results[i] }));
  control.results = controlRuns.map(([name], i) => ({ name, result: results[runs.length + i] }));
  let at = runs.length + controlRuns.length;
  for (const part of later) {
    part.results = results.slice(at, at + part.runs.length);
    at += part.runs.length;
  }
}

/** A folder for the batch's files, removed when the file's tests are done. */
function batchFolder(): TempDir {
  const dir = tempDir('agent-proxy-foreign-');
  batchFolders.push(dir);
  return dir;
}

describe('files that are not recordings, given to every command', () => {
  beforeAll(() => fileBatch());

  for (const c of CASES) {
    it(`${c.name}: one line naming the file and the problem, exit 2, nothing written`, () => {
      const { file, out, before, results } = made.get(c)!;
      expect(results.map((r) => r.name)).toEqual(Object.keys(commands(file, out)));
      for (const { name, result } of results) {
        const says = name === 'import' ? (c.importSays ?? c.says) : name === 'validate' ? (c.validateSays ?? c.says) : c.says;
        if (name === 'validate' && says.source === '^$') {
          // validate judged it as messages: no crash, a verdict.
          expect([0, 1], result.stderr).toContain(result.code);
          continue;
        }
        expectOneLine(result, `${name} on ${c.name}`, says);
        const base = file.split('/').pop()!;
        expect(result.stderr, name).toContain(base);
      }
      // Nothing was changed or left behind: the input as it was, no half-imported output.
      expect(readFileSync(file).equals(before)).toBe(true);
      expect(existsSync(out)).toBe(false);
    });
  }

  it('every command still works on a good recording (the control)', () => {
    expect(control.results.map((r) => r.name)).toEqual(['show', 'export', 'diff', 'validate', 'import']);
    for (const { name, result } of control.results) {
      expect(result.stderr, name).toBe('');
      expect([0, 1], name).toContain(result.code);
    }
    expect(existsSync(control.out)).toBe(true);
  });
});

describe('a damaged .db: stored JSON that does not parse', () => {
  it('names the exchange, the message and the column', async () => {
    // Run in the file's batch, made before the first describe block's tests.
    await fileBatch();
    const { partial, results = [] } = damaged!;
    expect(results).toHaveLength(9);
    const headerLine = /headers\.db: not a recording \(exchange 1: request_headers is not JSON: Expected property name or '\}' in JSON at position 1(?: \(line 1 column 2\))?\)$/;
    for (const r of results.slice(0, 4)) expectOneLine(r, 'headers', headerLine);
    expectOneLine(results[4], 'show json', /json\.db: not a recording \(exchange 1 message 3: json is not JSON: /);
    expectOneLine(results[5], 'replay json', /json\.db: not a recording \(exchange 1 message 3: json is not JSON: /);
    expectOneLine(results[6], 'diff json', /json\.db: not a recording \(exchange 1 message 3: json is not JSON: /);
    expectOneLine(results[7], 'export hashes', /hashes\.db: not a recording \(the recording row: schema_hashes is not JSON: /);
    // Found damaged halfway through: no half-written export is left.
    expectOneLine(results[8], 'export json --out', /json\.db: not a recording \(exchange 1 message 3: json is not JSON: /);
    expect(existsSync(partial)).toBe(false);
  });
});

describe('better-sqlite3 built for another Node.js', () => {
  it('maps Node\'s NODE_MODULE_VERSION error to one line: the Node.js it was built for, and the fix', () => {
    const error = Object.assign(
      new Error(
        "The module '/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 141. This version of Node.js requires\nNODE_MODULE_VERSION 115. Please try re-compiling or re-installing\nthe module (for instance, using `npm rebuild` or `npm install`).",
      ),
      { code: 'ERR_DLOPEN_FAILED' },
    );
    expect(nativeModuleProblem(error)).toBe(
      `better-sqlite3 was built for Node.js 25 (NODE_MODULE_VERSION 141), but this is Node.js ${process.versions.node} (NODE_MODULE_VERSION 115): run \`npm rebuild better-sqlite3\` with the Node.js that runs agent-proxy`,
    );
    const known = { 115: 20, 127: 22, 131: 23, 137: 24 };
    for (const [version, major] of Object.entries(known)) {
      const e = new Error(`x\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION ${version}. This version of Node.js requires\nNODE_MODULE_VERSION 1.`);
      expect(nativeModuleProblem(e)).toContain(`built for Node.js ${major} (NODE_MODULE_VERSION ${version})`);
    }
    expect(nativeModuleProblem(new Error('x using\nNODE_MODULE_VERSION 128. This version of Node.js requires\nNODE_MODULE_VERSION 115.'))).toContain('built for another Node.js (NODE_MODULE_VERSION 128)');
    expect(nativeModuleProblem(new Error('Could not locate the bindings file. Tried:\n → /a/build/better_sqlite3.node'))).toBe(
      "better-sqlite3's native module cannot be loaded (Could not locate the bindings file. Tried:): run `npm rebuild better-sqlite3` with the Node.js that runs agent-proxy",
    );
    expect(nativeModuleProblem(new Error('SQLITE_CANTOPEN'))).toBeUndefined();
  });

  const gcc = spawnSync('gcc', ['--version']).status === 0;
  it.skipIf(!gcc)('the built CLI, loading a native module that registers for another Node.js, says so in one line (show, record)', async () => {
    // A copy of the package whose better-sqlite3 native module is a stub built with gcc that
    // registers itself for another NODE_MODULE_VERSION: Node refuses it exactly as it refuses a
    // real better-sqlite3 built for another Node.js.
    const root = scratch('agent-proxy-foreign-').dir;
    for (const part of ['dist', 'bin', 'schemas', 'package.json']) linkedCopy(join(REPO, part), join(root, part));
    mkdirSync(join(root, 'node_modules'));
    for (const entry of readdirSync(join(REPO, 'node_modules'))) {
      if (entry !== 'better-sqlite3' && !entry.startsWith('.')) symlinkSync(join(REPO, 'node_modules', entry), join(root, 'node_modules', entry));
    }
    const pkg = join(root, 'node_modules', 'better-sqlite3');
    cpSync(join(REPO, 'node_modules', 'better-sqlite3', 'lib'), join(pkg, 'lib'), { recursive: true });
    copyFileSync(join(REPO, 'node_modules', 'better-sqlite3', 'package.json'), join(pkg, 'package.json'));
    mkdirSync(join(pkg, 'build', 'Release'), { recursive: true });
    const other = process.versions.modules === '127' ? 137 : 127;
    const stub = join(root, 'stub.c');
    writeFileSync(
      stub,
      `struct node_module { int nm_version; unsigned int nm_flags; void *nm_dso_handle; const char *nm_filename; void *nm_register_func; void *nm_context_register_func; const char *nm_modname; void *nm_priv; struct node_module *nm_link; };
extern void node_module_register(void *module);
static struct node_module module = {${other}, 0, 0, "stub.c", 0, 0, "better_sqlite3", 0, 0};
__attribute__((constructor)) static void registered(void) { node_module_register(&module); }
`,
    );
    const built = spawnSync('gcc', ['-shared', '-fPIC', '-o', join(pkg, 'build', 'Release', 'better_sqlite3.node'), stub], { encoding: 'utf8' });
    expect(built.status, built.stderr).toBe(0);

    const major = other === 127 ? 22 : 24;
    const line = new RegExp(
      `^agent-proxy: better-sqlite3 was built for Node\\.js ${major} \\(NODE_MODULE_VERSION ${other}\\), but this is Node\\.js ${esc(process.versions.node)} \\(NODE_MODULE_VERSION ${process.versions.modules}\\): run \`npm rebuild better-sqlite3\` with the Node\\.js that runs agent-proxy$`,
    );
    const bin = join(root, 'bin', 'proxy.js');
    const out = scratch('agent-proxy-foreign-').file('never.db');
    const [show, record] = await Promise.all([runToEnd(['show', GOOD], { bin }), runToEnd(['record', '--target', 'http://127.0.0.1:9', '--listen', '0', '--out', out], { bin })]);
    expectOneLine(show, 'show', line);
    expectOneLine(record, 'record (the recording worker opens the file)', line);
  });
});

describe("validate's own inputs, malformed", () => {
  it('a capture whose records are not what it says names the record and the field', async () => {
    // Run in the file's batch, made before the first describe block's tests; the control capture last.
    await fileBatch();
    const results = [...(malformed!.results ?? [])];
    const ok = results.pop()!;
    expect(results).toHaveLength(MALFORMED.length);
    results.forEach((result, i) => expectOneLine(result, MALFORMED[i][0], MALFORMED[i][2]));
    expect([0, 1]).toContain(ok.code);
    expect(ok.stderr).toBe('');
  });
});
