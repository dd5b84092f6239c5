/**
 * The recorder's main thread forwards; under a flood, the socket reads it lets go wait for a
 * scavenge of their Buffer objects before their memory is freed, so its young generation is kept
 * from growing (src/cli/forwarding-heap.ts). Checked on the built CLI, through a preload
 * that loads the young generation as it exits and reports how far it grew.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, cliEnv, runNodeToEnd, spawnCli } from '../cli/run-cli.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';

useCleanups();

const PROBE = fileURLToPath(new URL('./young-generation-probe.cjs', import.meta.url));
const MiB = 1024 * 1024;

function youngGenerationOf(stderr: string): number {
  const found = /young generation: (\d+) bytes/.exec(stderr);
  expect(found, `the probe's line in stderr: ${stderr}`).not.toBeNull();
  return Number(found![1]);
}

describe("the recorder's forwarding thread", () => {
  it('keeps its young generation at the few MiB it had when recording started, where a process left to V8 grows it', async () => {
    // The same load in a process that does not record: V8 grows the young generation, so the probe tells.
    const plain = await runNodeToEnd([BIN, '--version'], cliEnv({ NODE_OPTIONS: `--require ${PROBE}` }));
    expect(plain.code).toBe(0);
    expect(youngGenerationOf(plain.stderr)).toBeGreaterThanOrEqual(16 * MiB);

    const out = scratch('agent-proxy-young-').file('young.db');
    const recorder = spawnCli(['record', '--target', 'http://127.0.0.1:9', '--listen', '0', '--out', out, '--json'], { NODE_OPTIONS: `--require ${PROBE}` });
    onCleanup(async () => {
      if (recorder.child.exitCode === null && recorder.child.signalCode === null) recorder.child.kill('SIGKILL');
      await recorder.exited;
    });
    await recorder.waitForLine(/"event":"listening"/);
    recorder.child.kill('SIGINT');
    expect(await recorder.exited).toEqual({ code: 0, signal: null });
    // 1 or 2 MiB per semi-space, as start-up left it: not the 16 MiB (32 on Node 24) V8 grows it to.
    expect(youngGenerationOf(recorder.stderr())).toBeLessThanOrEqual(4 * MiB);
  });
});
