/**
 * bench/startup-floor.js against this build: one round, each floor checked against the CLI by the bench itself (it
 * fails otherwise), every contestant a figure. And each floor program on its own, so the floor is not a stub: the
 * floor replay answers the recorded request with the recorded events and a path it has no exchange for with 404, and
 * the floor validate judges by the compiled schema (an event the schema refuses is `invalid`, as `validate --json`
 * says). The figures themselves are not read here.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBench } from '../support/bench-run.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';

useCleanups();

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const EXAMPLE = join(ROOT, 'recordings/examples/agui-sse-run.ndjson');
const COMPILED = join(ROOT, 'dist/schema/compiled');

interface Row {
  type: string;
  exchange?: number;
  sender?: string;
  raw?: string;
  rawJson?: unknown;
}
const exampleRows = (): Row[] =>
  readFileSync(EXAMPLE, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Row);
const valueOf = (row: Row): unknown => row.rawJson ?? JSON.parse(row.raw!);

describe('startup-floor bench', () => {
  it('--runs 1: the floors checked against the CLI, then every contestant measured and each gap printed', async () => {
    const run = await runBench(['bench/startup-floor.js', '--runs', '1']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/checked: the floor replay answers 200, its headers \(Date aside\) and \d+ bytes of body \(15 events\) those of the CLI's replay/);
    expect(run.stdout).toContain('checked: the floor validate prints 8 events, each with the label and verdict `validate --json` gives (8 valid); JSON only, the same events');
    for (const label of ['bare `node -e 0`', 'replay: floor', 'replay: floor + code cache', 'replay: the CLI', 'validate: floor, JSON only (no validators)', 'validate: floor', 'validate: floor + code cache', 'validate: the CLI']) {
      const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      expect(run.stdout, label).toMatch(new RegExp(`\\n {2}${escaped} +\\d+\\.\\d ms \\(\\d+\\.\\d–\\d+\\.\\d\\) +\\d+\\.\\d\\d× \\(\\d+\\.\\d\\d–\\d+\\.\\d\\d\\) +wall \\d+\\.\\d ms\\n`));
    }
    for (const command of ['replay', 'validate']) {
      for (const floor of ['floor', 'cached floor']) expect(run.stdout).toMatch(new RegExp(`\\n {2}${command}: the CLI − its ${floor} -?\\d+\\.\\d ms; the ${floor} \\d+\\.\\d\\d×\\n`));
      expect(run.stdout).toMatch(new RegExp(`\\n {2}${command} ≤ 2×: (reachable: the least floor \\(${command}: floor( \\+ code cache)?\\) leaves \\d+\\.\\d ms under 2×|out of reach of any CLI of this design here: the least floor \\(${command}: floor( \\+ code cache)?\\) is \\d+\\.\\d ms over)`));
    }
  });

  it('--only validate --compare <build>: the other build\'s CLI validate checked to print the same, then measured in the same rounds, replay left out', async () => {
    const run = await runBench(['bench/startup-floor.js', '--runs', '1', '--no-cache', '--only', 'validate', '--compare', ROOT]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`checked: ${ROOT.replace(/\/$/, '')}'s validate prints what this build's does`);
    // No replay row (the compared build's folder, printed, may hold the word: a clone in a folder named so).
    expect(run.stdout.split(ROOT.replace(/\/$/, '')).join('')).not.toContain('replay');
    expect(run.stdout).toMatch(new RegExp(`\\n {2}validate: the CLI of ${ROOT.replace(/\/$/, '').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} +\\d+\\.\\d ms`));
    expect(run.stdout).toMatch(/\n {2}validate: \S+'s CLI − this build's, per round: median -?\d+\.\d ms \(-?\d+\.\d–-?\d+\.\d\), [01] of 1 rounds more\n/);
  });

  it('--marks: each contestant split into startup-split.js\'s phases, the floors beside the CLI', async () => {
    const run = await runBench(['bench/startup-floor.js', '--runs', '1', '--no-cache', '--marks']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const cells = (name: string) => {
      const line = run.stdout.split('\n').find((text) => text.startsWith(`| ${name} |`));
      expect(line, name).toBeDefined();
      return line!.split('|').slice(2, -1).map((cell) => (cell.trim() === '' ? NaN : Number(cell.trim())));
    };
    // bare, replay floor, replay CLI, validate JSON only, validate floor, validate CLI.
    expect(cells('end mark: exit / first response ended').every((ms) => ms > 0)).toBe(true);
    expect(cells("better-sqlite3's addon (dlopen)").map(Number.isNaN)).toEqual([true, false, false, true, true, true]);
    expect(cells('compiled schema validators (compile + run)').map(Number.isNaN)).toEqual([true, true, true, true, false, false]);
    expect(cells('bin/ and the bundle chunks (compile + top-level run)').map(Number.isNaN)).toEqual([true, true, false, true, true, false]);
  });

  it('the floor replay answers the recorded request with the recorded events, and an unrecorded path with 404', async () => {
    const dir = scratch('startup-floor-');
    const db = dir.file('small.db');
    const imported = await runBench(['bin/agent-proxy.js', 'import', EXAMPLE, '--out', db]);
    expect(imported.code).toBe(0);
    const child = spawn(process.execPath, ['bench/lib/floor-replay.cjs', join(ROOT, 'node_modules/better-sqlite3'), db], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((done) => child.on('exit', done));
    onCleanup(async () => {
      child.kill('SIGINT');
      await exited;
    });
    const url = await new Promise<string>((found, fail) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /listening on (\S+)/.exec(out);
        if (match) found(match[1]);
      });
      child.once('exit', (code) => fail(new Error(`the floor replay exited with ${code}`)));
    });
    const rows = exampleRows().filter((row) => row.type === 'message' && row.exchange === 1);
    const request = rows.find((row) => row.sender === 'client')!;
    const response = await fetch(`${url}/agent`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: request.raw ?? JSON.stringify(request.rawJson) });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = (await response.text())
      .split('\n\n')
      .filter((event) => event !== '')
      .map((event) => JSON.parse(event.replace(/^data: /, '')) as unknown);
    expect(events).toEqual(rows.filter((row) => row.sender === 'server').map(valueOf));
    const missing = await fetch(`${url}/elsewhere`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    await missing.text();
  });

  it("the floor validate judges each event by the compiled schema, as `validate --json` does, and prints the JSON-only variant's events unjudged", async () => {
    const dir = scratch('startup-floor-');
    const file = dir.file('mixed.sse');
    // STATE_SNAPSHOT without its snapshot: refused by the schema alone (no sequence rule minds it).
    writeFileSync(file, 'data: {"type":"RUN_STARTED","threadId":"t1","runId":"r1"}\n\ndata: {"type":"STATE_SNAPSHOT"}\n\ndata: {"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}\n\n');
    const cli = await runBench(['bin/agent-proxy.js', 'validate', '--json', file]);
    const report = JSON.parse(cli.stdout) as { messages: { label: string; verdict: { status: string } }[] };
    const expected = report.messages.map((message, i) => `${i} ${message.label} ${message.verdict.status}\n`).join('');
    expect(expected).toBe('0 RUN_STARTED valid\n1 STATE_SNAPSHOT invalid\n2 RUN_FINISHED valid\n');
    const floor = await runBench(['bench/lib/floor-validate.cjs', COMPILED, file]);
    expect(floor.stderr).toBe('');
    expect(floor.stdout).toBe(expected);
    const jsonOnly = await runBench(['bench/lib/floor-validate.cjs', COMPILED, file, '--json-only']);
    expect(jsonOnly.stdout).toBe('0 RUN_STARTED parsed\n1 STATE_SNAPSHOT parsed\n2 RUN_FINISHED parsed\n');
  });
});
