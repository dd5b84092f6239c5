/**
 * `record --forward -- <command>` and the signals that stop it: the command runs in the recorder's
 * process group, so a Ctrl-C (SIGINT to the group, as a terminal sends it) reaches it once, from the
 * kernel, and is not sent again; a SIGTERM to the recorder alone is passed on. The command counts what
 * it gets.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';
import { waitFor, within } from '../support/waits.js';
import { BIN, cliEnv, REPO } from './run-cli.js';

useCleanups();

/** Counts its SIGINTs; on SIGTERM says how many it got and exits 0. */
const COUNTER = String.raw`
let interrupts = 0;
process.on('SIGINT', () => process.stdout.write('SIGINT ' + ++interrupts + '\n'));
process.on('SIGTERM', () => {
  process.stdout.write('SIGTERM after ' + interrupts + ' SIGINT\n');
  process.exit(0);
});
setInterval(() => undefined, 1 << 30);
process.stdout.write('ready\n');
`;

describe('record --forward -- <command>: signals', () => {
  it("lets a Ctrl-C to the process group reach the command once, passes a SIGTERM to the recorder on, and exits with the command's code", async () => {
    const dir = scratch();
    const counter = dir.file('counter.mjs');
    writeFileSync(counter, COUNTER);
    // Its own process group, as a shell starts a job: a signal to the group reaches the recorder and the command.
    const cli = spawn(process.execPath, [BIN, 'record', '--forward', '--listen', '0', '--out', dir.file('run.db'), '--ca-dir', dir.file('ca'), '--', process.execPath, counter], {
      cwd: REPO,
      env: cliEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const group = cli.pid!;
    const exited = new Promise<number | null>((resolve) => cli.once('exit', (code) => resolve(code)));
    onCleanup(() => {
      if (cli.exitCode === null && cli.signalCode === null) process.kill(-group, 'SIGKILL');
    });
    let stdout = '';
    let stderr = '';
    cli.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    cli.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const lines = () => stdout.split('\n').filter(Boolean);

    await waitFor(() => lines().includes('ready'), 'the command to start');
    process.kill(-group, 'SIGINT');
    await waitFor(() => lines().includes('SIGINT 1'), 'the command to get the Ctrl-C');
    // Sent after any SIGINT the recorder passed on, so the command has counted every one by then.
    process.kill(group, 'SIGTERM');
    expect(await within(exited, 'the recorder to exit')).toBe(0);
    expect(lines()).toEqual(['ready', 'SIGINT 1', 'SIGTERM after 1 SIGINT']);
    expect(stderr).toMatch(/exited 0: /);
  });
});
