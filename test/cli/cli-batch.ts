/**
 * Many short runs of the built CLI in one child process (test/cli/cli-batch-runner.cjs calls its
 * main() once per run and keeps what each wrote to stdout and stderr), for the tests that check
 * dozens of error lines and exit codes: one CLI run costs ~0.25–0.35 s of CPU, most of it Node's
 * start and loading the CLI, which a batch pays once. Each batch also runs some of its argument
 * lists as real processes, as a user would (`node bin/agent-proxy.js …`), and fails unless they
 * printed the same bytes and ended with the same code as in the batch.
 *
 * For short runs whose output is what is tested. A run whose process is the point (signals, exit
 * while serving, start-up, another bin) stays a process of its own, and so do runs that would load
 * different schemas (--schemas) or need another environment at start-up: the runs of a batch share
 * one process and what its modules keep. A run can set variables that the CLI reads when a command
 * runs (AGENT_PROXY_SCHEMAS, AGENT_PROXY_DIFF_WORKER): the runner sets them for that run alone.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { cliEnv, REPO, runCli, runNodeToEnd, type CliResult } from './run-cli.js';

const RUNNER = fileURLToPath(new URL('./cli-batch-runner.cjs', import.meta.url));

/** One run: its arguments, or its arguments and the variables set in its environment while it runs. */
export type BatchRun = string[] | { args: string[]; env: Record<string, string> };

const argsOf = (run: BatchRun) => (Array.isArray(run) ? run : run.args);
const envOf = (run: BatchRun) => (Array.isArray(run) ? {} : run.env);

/**
 * Runs each argument list through the CLI, one after the other in one process, and resolves with
 * what each printed and its exit code, in order. `real`: the indexes of the runs also made as
 * processes of their own and compared (the first one unless told). `env`: the environment of the whole batch and of
 * those runs (NODE_OPTIONS, read at start-up).
 */
export async function runBatch(runs: BatchRun[], options: { real?: number[]; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-batch-'));
  try {
    writeFileSync(join(dir, 'runs.json'), JSON.stringify(runs));
    const batch = await runToEndAsBatch(join(dir, 'runs.json'), join(dir, 'results.json'), options.env);
    // Anything printed outside a run (after its main() ended) would have been lost from that run.
    expect({ code: batch.code, stdout: batch.stdout, stderr: batch.stderr }, 'the batch process itself').toEqual({ code: 0, stdout: '', stderr: '' });
    const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as CliResult[];
    expect(results).toHaveLength(runs.length);
    const real = options.real ?? [0];
    const alone = await Promise.all(real.map((at) => runCli(argsOf(runs[at]), { env: { ...options.env, ...envOf(runs[at]) } })));
    real.forEach((at, i) => expect(results[at], `${argsOf(runs[at]).join(' ')}: in the batch, then as a process of its own`).toEqual(alone[i]));
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The runner as a child with the environment runCli gives the CLI (and `env`: the whole batch's, such as NODE_OPTIONS), killed if the test ends first. */
function runToEndAsBatch(runsFile: string, resultsFile: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return runNodeToEnd([RUNNER, REPO, runsFile, resultsFile], cliEnv(env));
}
