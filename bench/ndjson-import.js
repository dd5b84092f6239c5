// The NDJSON import's CPU on one file, in one process: importNdjsonText of this build's dist (and, with
// --compare, of another build's, alternating run by run, so that both meet the same neighbours), into a
// scratch copy (what replay, show, validate and diff of a .ndjson do first) and into a kept file (`import`,
// compaction included). The file is read once, outside the timing. CPU per import: process.cpuUsage(),
// user + system, all threads; the first run of each warms up and is printed, not left out.
//   node bench/ndjson-import.js FILE.ndjson [--compare BUILD_ROOT] [--runs N]
import { rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { compare: { type: 'string' }, runs: { type: 'string', default: '3' } } });
if (positionals.length !== 1) {
  console.error('usage: node bench/ndjson-import.js FILE.ndjson [--compare BUILD_ROOT] [--runs N]');
  process.exit(2);
}
const file = resolve(positionals[0]);
const here = fileURLToPath(new URL('..', import.meta.url));
const builds = { this: await import(join(here, 'dist/store/ndjson-import.js')) };
if (values.compare) builds.compare = await import(join(resolve(values.compare), 'dist/store/ndjson-import.js'));
const text = builds.this.readNdjsonRecordingText(file);
const dir = mkdtempSync(join(tmpdir(), 'ndjson-import-bench-'));
const out = join(dir, 'out.db');
const times = Object.fromEntries(Object.keys(builds).map((name) => [name, { scratch: [], kept: [] }]));
try {
  for (let run = 0; run < Number(values.runs); run++) {
    const names = Object.keys(builds);
    if (run % 2 === 1) names.reverse();
    for (const name of names) {
      for (const mode of ['scratch', 'kept']) {
        rmSync(out, { force: true });
        const before = process.cpuUsage();
        builds[name].importNdjsonText(text, out, { file, scratch: mode === 'scratch', overwrite: true });
        const used = process.cpuUsage(before);
        times[name][mode].push(((used.user + used.system) / 1e6).toFixed(2));
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
for (const [name, { scratch, kept }] of Object.entries(times)) console.log(`${name}: scratch ${scratch.join(' ')} s | kept ${kept.join(' ')} s`);
