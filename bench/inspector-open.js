// The CPU of opening a small recording for the inspector and reading the views the suite's agreement
// check reads (test/support/recording-agreement.ts: InspectorData.open, the timeline, each exchange,
// its message pages, each message with findings), per recording: the check does this for every
// recording a test file writes.
// Run:  npm run build && node bench/inspector-open.js [--runs N] [--opens N] [--compare <other build>]
// The recording is `demo`'s first run (1 exchange, 17 AG-UI events), made by this build. Each round
// is a fresh process per build, alternating builds: 30 opens of warm-up, then --opens (default 200)
// timed with process.cpuUsage(); the figure is the median of --runs rounds (default 5).
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
  const [, dist, file, opens] = args;
  const { InspectorData, MAX_PAGE } = await import(pathToFileURL(join(dist, 'ui/server/inspector-data.js')).href);
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
const builds = [{ name: 'this build', dist: join(root, 'dist') }];
if (compare !== undefined) builds.push({ name: compare, dist: join(resolve(compare), 'dist') });

const dir = mkdtempSync(join(tmpdir(), 'bench-inspector-open-'));
try {
  execFileSync(process.execPath, [join(root, 'bin/agent-proxy.js'), 'demo', '--dir', dir], { stdio: 'ignore' });
  const file = join(dir, 'run-1.db');
  const figures = builds.map(() => []);
  for (let round = 0; round < runs; round++) {
    builds.forEach((build, i) => {
      const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', build.dist, file, opens], { encoding: 'utf8' });
      if (child.status !== 0) throw new Error(`${build.name}: ${child.stderr}`);
      figures[i].push(Number(child.stdout));
    });
  }
  const median = (list) => list.slice().sort((a, b) => a - b)[list.length >> 1];
  builds.forEach((build, i) => {
    const sorted = figures[i].slice().sort((a, b) => a - b);
    console.log(`${build.name}: ${median(figures[i]).toFixed(2)} ms CPU per recording opened and its views read (median of ${runs}; ${sorted[0].toFixed(2)}–${sorted.at(-1).toFixed(2)})`);
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
