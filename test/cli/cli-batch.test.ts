/**
 * test/cli/cli-batch.ts, the batch of CLI runs that the error-line tests use, against processes of
 * their own: the same bytes on stdout and stderr and the same exit code, for a run that prints a
 * lot, one that fails, one that ends in commander's own exit, and one after a failed one; and a
 * run with variables of its own in the environment.
 */
import { describe, expect, it } from 'vitest';
import { useCleanups } from '../support/cleanups.js';
import { AGUI_EXAMPLE, PI_EXAMPLE } from './cli-fixtures.js';
import { runBatch } from './cli-batch.js';

useCleanups();

describe('a batch of CLI runs', () => {
  it('gives each run what a process of its own prints and its exit code', async () => {
    const runs = [
      ['show', AGUI_EXAMPLE, '--exchange', '1', '--json'],
      ['show', `${AGUI_EXAMPLE}.nope`],
      ['--version'],
      ['findings', PI_EXAMPLE],
    ];
    // Every run also as a process of its own: runBatch fails unless each printed the same.
    const [shown, missing, version, findings] = await runBatch(runs, { real: [0, 1, 2, 3] });
    expect(JSON.parse(shown.stdout).messages.length).toBeGreaterThan(10);
    expect({ code: missing.code, stdout: missing.stdout }).toEqual({ code: 2, stdout: '' });
    expect(missing.stderr).toMatch(/^agent-proxy: no recording at .*\.nope\n$/);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
    expect(findings.code).toBe(0);
    expect(findings.stdout).toMatch(/findings? \(\d+ errors?, \d+ warnings?\)\n$/);
  });

  it("sets a run's own variables for that run alone", async () => {
    const validate = ['validate', AGUI_EXAMPLE];
    const runs = [validate, { args: validate, env: { AGENT_PROXY_SCHEMAS: '/nonexistent-schemas' } }, validate];
    const [before, withSchemas, after] = await runBatch(runs, { real: [0, 1] });
    // Judged (exit 0 or 1, the example has findings), not refused.
    expect([0, 1]).toContain(before.code);
    expect(before.stderr).toBe('');
    expect(withSchemas.code).toBe(2);
    expect(withSchemas.stderr).toContain('cannot read schema directory /nonexistent-schemas');
    expect(after).toEqual(before);
  });
});
