#!/usr/bin/env node
// The schema registry's part of a `validate` start, alone: in fresh processes, the CPU (process.cpuUsage,
// µs) of `SchemaRegistry.load()` and of the first AG-UI check (`RunStartedEvent`, as validate of an AG-UI
// file asks first), each after the catalog is loaded and before anything else, so Node's start and the
// bundle's loading (±10–20 ms a round on a shared machine) stay out of it. Alternates this build and
// `--compare <build>` in the same rounds; medians and the median of the rounds' differences.
//   node bench/registry-start.js [--runs N] [--dir <build>] [--compare <build>]
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : args[at + 1];
};
const runs = Number(option('--runs', '21'));
const here = resolve(fileURLToPath(new URL('..', import.meta.url)));
const builds = [resolve(option('--dir', here)), ...(option('--compare') ? [resolve(option('--compare'))] : [])];

/** One process: the registry's load and first check in `build`, in µs of CPU. */
function once(build) {
  const probe = `
    import { pathToFileURL } from 'node:url';
    const at = (file) => pathToFileURL(${JSON.stringify(build)} + '/dist/' + file).href;
    await import(at('protocols/catalog.js'));
    const { AGUI_SCHEMA_ID } = await import(at('protocols/agui/schemas.js'));
    const { SchemaRegistry } = await import(at('schema/schema-registry.js'));
    const cpu = () => { const { user, system } = process.cpuUsage(); return user + system; };
    const start = cpu();
    const registry = SchemaRegistry.load({ useEnv: false });
    const loaded = cpu();
    const check = registry.check(AGUI_SCHEMA_ID + '#RunStartedEvent');
    const checked = cpu();
    if (!check.ok || check.validate({ type: 'RUN_STARTED', threadId: 't', runId: 'r' }).length !== 0) throw new Error('RunStartedEvent is not checked');
    console.log(JSON.stringify({ load: loaded - start, check: checked - loaded }));
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: build, encoding: 'utf8', env: { ...process.env, AGENT_PROXY_SCHEMAS: '' } });
  if (run.status !== 0) throw new Error(`${build}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const ms = (us) => (us / 1000).toFixed(2);

const results = builds.map(() => []);
for (let round = 0; round < runs; round++) builds.forEach((build, i) => results[i].push(once(build)));
console.log(`schema registry start: node ${process.version}, median of ${runs} rounds, alternating; CPU ms (min–max)`);
builds.forEach((build, i) => {
  const total = results[i].map((r) => r.load + r.check);
  console.log(`  ${build}: load ${ms(median(results[i].map((r) => r.load)))}, first AG-UI check ${ms(median(results[i].map((r) => r.check)))}, both ${ms(median(total))} (${ms(Math.min(...total))}–${ms(Math.max(...total))})`);
});
if (builds.length === 2) {
  const differences = results[1].map((r, round) => r.load + r.check - results[0][round].load - results[0][round].check);
  console.log(`  ${builds[1]} − ${builds[0]}, per round: median ${ms(median(differences))} ms (${ms(Math.min(...differences))}–${ms(Math.max(...differences))}), ${differences.filter((d) => d > 0).length} of ${runs} rounds more`);
}
