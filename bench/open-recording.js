// Opening a small recording (issue 34): the CPU of each open of a .db, the way `show`, `findings`,
// `validate`, `diff`, `export`, `replay`, the inspector and the tests' agreement check open one
// (store/open-recording.ts: the head read, the pragmas, the format and shape checks, the reader's
// first statements), then closing it. `open` opens and closes; `views` also reads what a command
// reads first (the recording row, the exchanges, the first exchange's messages, the totals).
// Each round is a child process per build, which opens the file --warm times, then --opens more
// with its own process.cpuUsage() around them; the figure is the median over --rounds of µs per open.
// With --compare <dir> (another build: a folder with dist/), the rounds alternate between the two.
// Run after a build:  node bench/open-recording.js [--opens 1000] [--rounds 7] [--compare /tmp/other]
//   [--file some.db] (default: the example AG-UI run, imported at the newest format)
//   [--prof DIR] (each child writes a --cpu-prof profile there)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : process.argv[at + 1];
};

if (process.argv[2] === '--child') {
  // node bench/open-recording.js --child DIST FILE OPENS WARM
  const [dist, file, opens, warm] = process.argv.slice(3);
  const { openRecording } = await import(pathToFileURL(join(dist, 'store/open-recording.js')).href);
  const once = {
    open: () => openRecording(file).close(),
    views: () => {
      const reader = openRecording(file);
      reader.recording();
      const exchanges = reader.exchanges();
      if (exchanges.length > 0) reader.messages(exchanges[0].id);
      reader.totals();
      reader.close();
    },
  };
  const result = {};
  for (const [mode, run] of Object.entries(once)) {
    for (let i = 0; i < Number(warm); i++) run();
    const before = process.cpuUsage();
    for (let i = 0; i < Number(opens); i++) run();
    const used = process.cpuUsage(before);
    result[mode] = (used.user + used.system) / Number(opens);
  }
  process.stdout.write(JSON.stringify(result));
  process.exit(0);
}

const OPENS = Number(arg('--opens', 1000));
const WARM = Number(arg('--warm', 30));
const ROUNDS = Number(arg('--rounds', 7));
const COMPARE = arg('--compare', undefined);
const PROF = arg('--prof', undefined);
const builds = [{ name: 'this build', dist: join(ROOT, 'dist') }];
if (COMPARE) builds.push({ name: resolve(COMPARE), dist: join(resolve(COMPARE), 'dist') });

const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-open-bench-'));
try {
  let file = arg('--file', undefined);
  if (file === undefined) {
    file = join(dir, 'small.db');
    const { importNdjsonFile } = await import(pathToFileURL(join(ROOT, 'dist/store/ndjson-import.js')).href);
    importNdjsonFile(join(ROOT, 'recordings/examples/agui-sse-run.ndjson'), file);
  }
  const figures = new Map(builds.map((b) => [b, { open: [], views: [] }]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const b of order) {
      const prof = PROF ? ['--cpu-prof', '--cpu-prof-dir', PROF] : [];
      const child = spawnSync(process.execPath, [...prof, fileURLToPath(import.meta.url), '--child', b.dist, file, String(OPENS), String(WARM)], { encoding: 'utf8' });
      if (child.status !== 0) throw new Error(`${b.name}: ${child.stderr}`);
      const result = JSON.parse(child.stdout);
      for (const mode of ['open', 'views']) figures.get(b)[mode].push(result[mode]);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const spread = (xs) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;
  console.log(`CPU per open of ${file} (µs, median of ${ROUNDS} rounds of ${OPENS}; spread in brackets)`);
  for (const b of builds) {
    const f = figures.get(b);
    console.log(`  ${b.name.padEnd(24)} open+close ${median(f.open).toFixed(0).padStart(6)} (${spread(f.open)})   with views ${median(f.views).toFixed(0).padStart(6)} (${spread(f.views)})`);
  }
  if (builds.length === 2) {
    const [a, b] = builds.map((x) => figures.get(x));
    console.log(`  ratio this/other          open+close ${(median(a.open) / median(b.open)).toFixed(2)}   with views ${(median(a.views) / median(b.views)).toFixed(2)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
