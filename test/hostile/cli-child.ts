/**
 * The built CLI as a long-running child for hostile-peer tests: killed after each test if still
 * running, with a way to wait for what it prints on stderr and for raw bytes on a socket.
 */
import { connect } from 'node:net';
import { BIN, runNodeToEnd, spawnCli, type CliProcess, type CliResult } from '../cli/run-cli.js';
import { onCleanup } from '../support/cleanups.js';

export interface CliChild extends CliProcess {
  /** Resolves with stderr once it matches `pattern` (already printed or still to come). */
  waitForStderr(pattern: RegExp): Promise<string>;
  /** Sends `signal` and resolves with how the process ended. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** True while the process runs. */
  alive(): boolean;
}

export function startCli(args: string[], env: NodeJS.ProcessEnv = {}): CliChild {
  const cli = spawnCli(args, env);
  const alive = () => cli.child.exitCode === null && cli.child.signalCode === null;
  onCleanup(async () => {
    if (alive()) {
      cli.child.kill('SIGKILL');
      await cli.exited;
    }
  });
  const waitForStderr = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        if (pattern.test(cli.stderr())) {
          cli.child.stderr.off('data', check);
          cli.child.off('exit', gone);
          resolve(cli.stderr());
        }
      };
      const gone = () => setImmediate(() => (pattern.test(cli.stderr()) ? check() : reject(new Error(`exited before stderr matched ${pattern}; stderr: ${cli.stderr()}`))));
      cli.child.stderr.on('data', check);
      cli.child.once('exit', gone);
      check();
    });
  return {
    ...cli,
    waitForStderr,
    alive,
    stop(signal = 'SIGINT') {
      if (alive()) cli.child.kill(signal);
      return cli.exited;
    },
  };
}

/** The port of an `http://host:port` URL. */
export function portOf(url: string): number {
  return Number(new URL(url).port);
}

/**
 * Writes `bytes` (or runs `write`) on a raw TCP connection and resolves with everything the
 * server sent until it closed the connection, or until `until` matched what arrived (then the
 * connection is closed from here). A reset after the answer counts as the end.
 */
export function rawExchange(port: number, write: Buffer | string | ((socket: import('node:net').Socket) => void), until?: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve(got);
    };
    socket.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      if (until?.test(got)) finish();
    });
    socket.on('close', finish);
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (got !== '' || error.code === 'EPIPE' || error.code === 'ECONNRESET') finish();
      else reject(error);
    });
    socket.on('connect', () => {
      if (typeof write === 'function') write(socket);
      else socket.write(write);
    });
  });
}

/**
 * Runs the CLI (or another copy of bin/proxy.js) to its end and resolves with what it printed. If
 * the test ends first (a command that should have refused to start is serving instead), the
 * process is killed, not left behind.
 */
export function runToEnd(args: string[], options: { bin?: string } = {}): Promise<CliResult> {
  return runNodeToEnd([options.bin ?? BIN, ...args], { ...process.env, NO_COLOR: '1', AGENT_PROXY_SCHEMAS: '' });
}
