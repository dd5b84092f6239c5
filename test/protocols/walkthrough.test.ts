/**
 * The walk-through of docs/protocols.md, "Adding a protocol": a throwaway protocol, tally (a client
 * POSTs numbers to /tally/sum, the service answers their sum), is added to a temp copy of the built
 * package the way the guide says, and nothing else is edited: its folder
 * (test/fixtures/protocol-walkthrough/protocols/tally/, written as if it sat in src/protocols/ and
 * type-checked so) goes to dist/protocols/tally/, its schema to schemas/, and its line to the
 * catalog and to module-by-id.ts. Then record, validate, replay and diff, through the package API in one
 * child process (test/fixtures/protocol-walkthrough/drive-tally.mjs), all pick it up.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'rolldown/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, REPO } from '../cli/run-cli.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/protocol-walkthrough/', import.meta.url));

/** What the driver saw each tool do (drive-tally.mjs prints it). */
interface Verdict {
  status: string;
  rules: string[];
}
interface Report {
  record: Array<{ protocol: string | null; messages: Array<Verdict & { sender: string; tallyPin?: string }> }>;
  validateRecording: Array<Verdict & { exchange: number; protocol?: string; sender: string }>;
  validateFile: Array<Verdict & { protocol?: string; sender: string }>;
  replay: {
    missAnswers: string;
    served: { status: number; contentType: string | null; body: unknown };
    miss: { status: number; contentType: string | null; body: { tallyId?: string; error?: { code: string; message: string } } };
  };
  diff: {
    summary: { equal: number; changed: number; added: number; removed: number };
    exchanges: Array<{ change: string; messages: Array<{ differences: Array<{ pointer: string; a?: unknown; b?: unknown }>; verdict?: string }> }>;
  };
}

/** `source` with `line` after the last line matching `pattern`: where the guide says the line goes. */
function addAfterLast(source: string, pattern: RegExp, line: string, file: string): string {
  const lines = source.split('\n');
  const at = lines.findLastIndex((l) => pattern.test(l));
  if (at < 0) throw new Error(`${file} has no line like ${pattern}: update the walk-through and docs/protocols.md`);
  lines.splice(at + 1, 0, line);
  return lines.join('\n');
}

/** TypeScript to the JavaScript dist/ holds (types erased, as tsc emits it). */
function compile(file: string, source: string): string {
  const { code, errors } = transformSync(file, source);
  if (errors.length > 0) throw new Error(`${file}: ${errors.map((e) => e.message).join('; ')}`);
  return code;
}

/** A link to a folder of the repository, removed before the temp folder is (whose clean-up looks for recordings in it, following links). */
function link(target: string, path: string): void {
  symlinkSync(target, path, 'dir');
  links.push(path);
}

/** A copy of the built package (its unbundled ESM, which the package API and its recording worker run) with tally added. */
function packageWithTally(dir: string): void {
  // Not the CLI's bundle (a rolldown build of these modules: see "Adding a protocol"), nor the
  // validators compiled from the shipped schemas (16 MB, linked: they are read, never changed).
  const compiled = join('dist', 'schema', 'compiled');
  cpSync(join(REPO, 'dist'), join(dir, 'dist'), {
    recursive: true,
    filter: (src) => basename(src) !== 'bundle' && !src.endsWith(compiled) && !src.endsWith('.map') && !src.endsWith('.d.ts'),
  });
  link(join(REPO, compiled), join(dir, compiled));
  cpSync(join(REPO, 'schemas'), join(dir, 'schemas'), { recursive: true });
  copyFileSync(join(REPO, 'package.json'), join(dir, 'package.json'));
  link(join(REPO, 'node_modules'), join(dir, 'node_modules'));

  // 1. The folder.
  const folder = join(FIXTURE, 'protocols', 'tally');
  mkdirSync(join(dir, 'dist', 'protocols', 'tally'));
  for (const name of readdirSync(folder)) {
    const js = join(dir, 'dist', 'protocols', 'tally', name.replace(/\.ts$/, '.js'));
    writeFileSync(js, compile(name, readFileSync(join(folder, name), 'utf8')));
  }
  // 2. Its schema, shipped under schemas/ (its validators are compiled at run time: no build step ran).
  copyFileSync(join(FIXTURE, 'schemas', 'tally.schema.json'), join(dir, 'schemas', 'tally.schema.json'));
  // 3. Its line in the catalog, and in module-by-id.ts, each with its import, written into the sources and compiled.
  const catalog = join(REPO, 'src', 'protocols', 'catalog.ts');
  let source = readFileSync(catalog, 'utf8');
  source = addAfterLast(source, /^import \{ \w+ \} from '\.\/[\w-]+\/replay-facts\.js';$/, "import { tallyReplayFacts } from './tally/replay-facts.js';", catalog);
  source = addAfterLast(source, /^ {2}\{ facts: \w+, load: \(\) => import\('\.\/[\w-]+\/index\.js'\) \},$/, "  { facts: tallyReplayFacts, load: () => import('./tally/index.js') },", catalog);
  writeFileSync(join(dir, 'dist', 'protocols', 'catalog.js'), compile('catalog.ts', source));
  const modules = join(REPO, 'src', 'protocols', 'module-by-id.ts');
  source = readFileSync(modules, 'utf8');
  source = addAfterLast(source, /^import \{ \w+Protocol \} from '\.\/[\w-]+\/index\.js';$/, "import { tallyProtocol } from './tally/index.js';", modules);
  source = addAfterLast(source, /^ {2}'?[\w-]+'?: \(\) => \w+Protocol,$/, '  tally: () => tallyProtocol,', modules);
  writeFileSync(join(dir, 'dist', 'protocols', 'module-by-id.js'), compile('module-by-id.ts', source));
}

function drive(pkg: string, work: string): Promise<Report> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [join(FIXTURE, 'drive-tally.mjs'), pkg, work], { env: cliEnv(), encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) reject(new Error(`the walk-through driver failed: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout) as Report);
    });
  });
}

let folder: TempDir;
let links: string[] = [];
let report: Report;

beforeAll(async () => {
  folder = tempDir('agent-proxy-walkthrough-');
  const pkg = join(folder.dir, 'package');
  const work = join(folder.dir, 'work');
  mkdirSync(work);
  packageWithTally(pkg);
  report = await drive(pkg, work);
});

afterAll(() => {
  for (const path of links) unlinkSync(path);
  links = [];
  folder?.cleanup();
});

describe('adding a protocol: one folder, its schema and its catalog lines', () => {
  it('record recognises it: a right sum passes, a wrong one gets its rule, a request against its schema a schema finding; its secret is stored redacted', () => {
    expect(report.record).toEqual([
      {
        protocol: 'tally',
        messages: [
          { sender: 'client', status: 'valid', rules: [], tallyPin: '<redacted>' },
          { sender: 'server', status: 'valid', rules: [] },
        ],
      },
      {
        protocol: 'tally',
        messages: [
          { sender: 'client', status: 'valid', rules: [] },
          { sender: 'server', status: 'invalid', rules: ['tally-wrong-sum /sum'] },
        ],
      },
      {
        protocol: 'tally',
        messages: [
          { sender: 'client', status: 'invalid', rules: ['schema /numbers/1'] },
          { sender: 'server', status: 'valid', rules: [] },
        ],
      },
    ]);
  });

  it('validate judges the recording as record did, and picks it for a file of lone messages by their shape', () => {
    expect(report.validateRecording).toEqual(
      report.record.flatMap((exchange, i) => exchange.messages.map(({ sender, status, rules }) => ({ exchange: i + 1, protocol: 'tally', sender, status, rules }))),
    );
    expect(report.validateFile).toEqual([
      { protocol: 'tally', sender: 'client', status: 'valid', rules: [] },
      { protocol: 'tally', sender: 'server', status: 'invalid', rules: ['tally-wrong-sum /sum'] },
    ]);
  });

  it("replay serves a call with a fresh tallyId, echoing it, and answers a miss in tally's own error shape", () => {
    expect(report.replay.missAnswers).toContain('tally requests get 404 with a tally error');
    expect(report.replay.served).toMatchObject({ status: 200, body: { tallyId: 't-live-000001', sum: 6 } });
    expect(report.replay.miss).toMatchObject({ status: 404, body: { tallyId: 't-live-000002', error: { code: 'tally_replay_miss' } } });
  });

  it('diff labels the tallyIds instead of comparing them, and reports the one real change: the sum fixed', () => {
    expect(report.diff.summary).toEqual({ equal: 2, changed: 1, added: 0, removed: 0 });
    expect(report.diff.exchanges).toEqual([{ change: 'changed', messages: [{ differences: [{ pointer: '/sum', a: 5, b: 4 }], verdict: 'fixed' }] }]);
  });
});
