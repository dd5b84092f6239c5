// The CPU of opening a small recording for the inspector and reading the views the suite's agreement
// check reads (test/support/recording-agreement.ts: InspectorData.open, the timeline, each exchange,
// its message pages, each message with findings), per recording: the check does this for every
// recording a test file writes.
// Run:  npm run build && node bench/inspector-open.js [--runs N] [--opens N] [--page] [--compare <other build>]
// The recording is `demo`'s first run (1 exchange, 17 AG-UI events), made by this build. Each round
// is a fresh process per build, alternating builds: 30 opens of warm-up, then --opens (default 200)
// timed with process.cpuUsage(); the figure is the median of --runs rounds (default 5).
// --page: instead, the CPU of one page of the exchange's messages (InspectorData.messages: its SQL and
// the labels it makes), on a recording opened once: 3,000 pages of warm-up, then --opens × 100 timed.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : args[i + 1];
};

if (args[0] === '--child') {
  const [, dist, file, opens, mode] = args;
  const { InspectorData, MAX_PAGE } = await import(pathToFileURL(join(dist, 'ui/server/inspector-data.js')).href);
  if (mode === 'page') {
    const data = InspectorData.open(file);
    const [{ id }] = data.exchanges();
    for (let i = 0; i < 3000; i++) data.messages(id, 0, MAX_PAGE);
    const pages = Number(opens) * 100;
    const start = process.cpuUsage();
    for (let i = 0; i < pages; i++) data.messages(id, 0, MAX_PAGE);
    const used = process.cpuUsage(start);
    data.close();
    process.stdout.write(String((used.user + used.system) / 1000 / pages));
    process.exit(0);
  }
  const views = () => {
    const data = InspectorData.open(file);
    try {
      for (const { id } of data.exchanges()) {
        data.exchange(id);
        for (let offset = 0, total = Infinity; offset < total; offset += MAX_PAGE) {
          const page = data.messages(id, offset, MAX_PAGE);
          total = page.total;
          for (const m of page.items) if (m.findingCount > 0) data.message(id, m.seq);
        }
      }
    } finally {
      data.close();
    }
  };
  for (let i = 0; i < 30; i++) views();
  const start = process.cpuUsage();
  for (let i = 0; i < Number(opens); i++) views();
  const used = process.cpuUsage(start);
  process.stdout.write(String((used.user + used.system) / 1000 / Number(opens)));
  process.exit(0);
}

const root = fileURLToPath(new URL('..', import.meta.url));
const runs = Number(option('--runs', 5));
const opens = option('--opens', '200');
const compare = option('--compare', undefined);
const page = args.includes('--page');
const builds = [{ name: 'this build', dist: join(root, 'dist') }];
if (compare !== undefined) builds.push({ name: compare, dist: join(resolve(compare), 'dist') });

const dir = mkdtempSync(join(tmpdir(), 'bench-inspector-open-'));
try {
  execFileSync(process.execPath, [join(root, 'bin/agent-proxy.js'), 'demo', '--dir', dir], { stdio: 'ignore' });
  const file = join(dir, 'run-1.db');
  const figures = builds.map(() => []);
  for (let round = 0; round < runs; round++) {
    builds.forEach((build, i) => {
      const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', build.dist, file, opens, page ? 'page' : 'open'], { encoding: 'utf8' });
      if (child.status !== 0) throw new Error(`${build.name}: ${child.stderr}`);
      figures[i].push(Number(child.stdout));
    });
  }
  const median = (list) => list.slice().sort((a, b) => a - b)[list.length >> 1];
  builds.forEach((build, i) => {
    const sorted = figures[i].slice().sort((a, b) => a - b);
    const what = page ? 'page of its 17 messages read' : 'recording opened and its views read';
    const digits = page ? 3 : 2;
    console.log(`${build.name}: ${median(figures[i]).toFixed(digits)} ms CPU per ${what} (median of ${runs}; ${sorted[0].toFixed(digits)}–${sorted.at(-1).toFixed(digits)})`);
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
