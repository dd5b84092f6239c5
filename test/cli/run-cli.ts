import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { onCleanup } from '../support/cleanups.js';
import { within } from '../support/waits.js';

export const BIN = fileURLToPath(new URL('../../bin/agent-proxy.js', import.meta.url));
export const REPO = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a CLI child: the test's own, without colours or the developer's schema
 * directories, plus `env`. FORCE_COLOR is removed rather than set to '': Node >= 22 takes an empty
 * FORCE_COLOR as set and, with NO_COLOR also set, prints a warning on stderr once its colour helpers
 * load (importing node:http loads them), which would break every "stderr is empty" assertion.
 */
export function cliEnv(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', AGENT_PROXY_SCHEMAS: '', ...env };
  if (env.FORCE_COLOR === undefined) delete merged.FORCE_COLOR;
  return merged;
}

/** Runs the built CLI under plain node, as a user would (npm test builds dist first). */
/** `bin`: another copy of the CLI's bin script to run (an installed package's), instead of this repository's. */
export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; bin?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [options.bin ?? BIN, ...args], {
      cwd: options.cwd ?? REPO,
      env: cliEnv(options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * `node <argv>` in the repository, run to its end with its output kept (decoded as UTF-8 across
 * chunks); killed after the test if it is still running then.
 */
export function runNodeToEnd(argv: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
    onCleanup(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `proxy <args>` as a long-running child process, with its stdout split into lines as they arrive. */
export interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  lines: string[];
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout line matching `pattern` (already printed or still to come). */
  waitForLine(pattern: RegExp): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `shell`: commands for /bin/sh to run first (a `ulimit`, a `trap`), in the process that then becomes the CLI.
 * `at`: another copy of the CLI's bin script (an installed package's) and the folder to run it in.
 */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}, shell?: string, at: { bin?: string; cwd?: string } = {}): CliProcess {
  const bin = at.bin ?? BIN;
  const [file, argv] = shell === undefined ? [process.execPath, [bin, ...args]] : ['/bin/sh', ['-c', `${shell}; exec "$0" "$@"`, process.execPath, bin, ...args]];
  const child = spawn(file, argv, {
    cwd: at.cwd ?? REPO,
    env: cliEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    lines.splice(0, lines.length, ...out.split('\n').slice(0, -1));
    for (const w of waiters.splice(0)) w();
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  let gone = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      gone = true;
      for (const w of waiters.splice(0)) w();
      resolve({ code, signal });
    }),
  );
  // No deadline of its own: the recorder listens once its worker, which runs at the lowest
  // priority, is ready, and on a loaded machine that alone can take long.
  const waitForLine = (pattern: RegExp) =>
    within(
      new Promise<string>((resolve, reject) => {
        const check = () => {
          const line = lines.find((l) => pattern.test(l));
          if (line !== undefined) resolve(line);
          else if (gone) reject(new Error(`proxy exited before printing ${pattern}; stdout: ${out}; stderr: ${err}`));
          else waiters.push(check);
        };
        check();
      }),
      `a stdout line matching ${pattern}`,
    );
  return { child, lines, stdout: () => out, stderr: () => err, waitForLine, exited };
}
