import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, runCli } from '../cli/run-cli.js';
import { useCleanups } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';

useCleanups();

describe('agent-proxy demo', () => {
  it('runs the whole loop through the built CLI and exits 0: record, replay, record again, diff equal', async () => {
    const dir = scratch('agent-proxy-demo-test-').dir;
    const result = await runCli(['demo', '--dir', dir]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = result.stdout;
    for (const step of ['1/5', '2/5', '3/5', '4/5', '5/5']) expect(out).toContain(step);
    // The live view: the exchange line and the deliberate mistake.
    expect(out).toMatch(/#1 POST \/agent 200 sse\/agui \d+ msg 1 invalid/);
    expect(out).toContain('tool-call-args-not-started');
    expect(out).toContain('equal after normalization');
    // Next steps name the command as it runs from here (a clone: its bin script), and the inspector.
    const next = out.slice(out.indexOf('5/5'));
    expect(next).toContain(`node bin/agent-proxy.js view ${join(dir, 'run-1.db')} `);
    expect(next).toContain(`node bin/agent-proxy.js view ${join(dir, 'run-1.db')} --diff ${join(dir, 'run-2.db')}`);
    expect(next).toContain(`node bin/agent-proxy.js diff ${join(dir, 'run-1.db')} ${join(dir, 'run-2.db')}`);
    // …and they run as printed.
    const show = next.split('\n').find((l) => l.includes(' show ') && l.includes('--exchange 1'))!;
    const shown = spawnSync('/bin/sh', ['-c', show.trim()], { cwd: REPO, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(shown.stderr).toBe('');
    expect(shown.status).toBe(0);
    expect(shown.stdout).toContain('tool-call-args-not-started');
    expect(existsSync(join(dir, 'run-1.db'))).toBe(true);
    expect(existsSync(join(dir, 'run-2.db'))).toBe(true);
    // The recordings it leaves behind work with the other commands.
    expect((await runCli(['diff', join(dir, 'run-1.db'), join(dir, 'run-2.db')])).code).toBe(0);
  });
});
