/**
 * bench/startup-split.js still takes a start apart against this build: one round of each process, every row it
 * prints for `validate` and `replay` a figure, the loading rows and the command's work adding up to the end mark
 * (each run's rows are its own marks; the medians of one round are that round), and the files it names loaded.
 * The figures themselves are not read here.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBench } from '../support/bench-run.js';

/** The table's row `name`: its three cells (bare, validate, replay), NaN where empty. */
function row(stdout: string, name: string): number[] {
  const line = stdout.split('\n').find((text) => text.startsWith(`| ${name} `));
  expect(line, name).toBeDefined();
  return line!
    .split('|')
    .slice(2, 5)
    .map((cell) => (cell.trim() === '' ? NaN : Number(cell.trim())));
}

describe('startup-split bench', () => {
  it('splits one round of bare, validate and replay into rows that add up to each end mark', async () => {
    const run = await runBench(['bench/startup-split.js', '--runs', '1']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const end = row(run.stdout, 'end mark: exit / first response ended');
    const parts = [
      "Node's start, to the first line of JavaScript",
      "bin/ (agent-proxy.js, code-cache.js), with main()'s synchronous part",
      "the command's bundle chunks (compile + top-level run)",
      'compiled schema validators (compile + run)',
      "better-sqlite3's JavaScript (13 files)",
      "better-sqlite3's addon (dlopen)",
      'builtins, at their first require',
      "the command's work, first run (to the end mark)",
    ].map((name) => row(run.stdout, name));
    // A file of no row above (none today) is counted in 'other files', printed only then.
    if (run.stdout.includes('| other files ')) parts.push(row(run.stdout, 'other files'));
    for (const column of [1, 2]) {
      expect(end[column]).toBeGreaterThan(0);
      const sum = parts.reduce((total, cells) => total + (Number.isNaN(cells[column]) ? 0 : cells[column]), 0);
      // Each cell is rounded to 0.1 ms.
      expect(Math.abs(sum - end[column])).toBeLessThan(0.1 * parts.length);
    }
    expect(row(run.stdout, 'compiled schema validators (compile + run)')[1]).toBeGreaterThan(0);
    expect(row(run.stdout, "better-sqlite3's addon (dlopen)")[2]).toBeGreaterThan(0);
    expect(row(run.stdout, '  of which before listening')[2]).toBeGreaterThan(0);
    expect(run.stdout).toMatch(/validate's main\(\) in one process: first run \d+\.\d ms, second \(warm\) \d+\.\d ms/);
    expect(run.stdout).toMatch(/validate, the 8 costliest files \(self\): .*doc0\.all-errors\.cjs/);
    expect(run.stdout).toMatch(/replay: compiling its \d+ files of dist\/ alone, in a fresh process: \d+\.\d ms/);
  });

  it('--code-cache-at-exit: validate and replay run with the cache its first runs made', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'startup-split-cache-'));
    try {
      const run = await runBench(['bench/startup-split.js', '--runs', '1', '--code-cache-at-exit', dir]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`validate and replay with bench/lib/code-cache-preload.cjs (${dir})`);
      const end = row(run.stdout, 'end mark: exit / first response ended');
      expect(end[1]).toBeGreaterThan(0);
      expect(end[2]).toBeGreaterThan(0);
      // One cache file per file of dist/ and better-sqlite3 the two commands loaded: at least validate's 6 and replay's 4.
      expect(readdirSync(dir).length).toBeGreaterThanOrEqual(10);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
