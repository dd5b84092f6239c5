/**
 * bench/registry-start.js measures what it names: the registry's load and its first AG-UI check, in
 * each build it is given (the probe fails the run if RunStartedEvent is not checked). One round, the
 * figures not read.
 */
import { describe, expect, it } from 'vitest';
import { runBench } from '../support/bench-run.js';
import { REPO } from '../cli/run-cli.js';

describe('registry-start bench', () => {
  it('times the load and the first AG-UI check of this build and the compared one, and their difference', async () => {
    const run = await runBench(['bench/registry-start.js', '--runs', '1', '--compare', REPO]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/: load \d+\.\d\d, first AG-UI check \d+\.\d\d, both \d+\.\d\d \(/);
    expect(run.stdout).toMatch(/per round: median -?\d+\.\d\d ms .*, \d of 1 rounds more\n/);
    expect(run.code).toBe(0);
  }, 30_000);
});
