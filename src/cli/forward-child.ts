import { spawn } from 'node:child_process';
import { exitCodeOf } from '../record/relay/stdio-recorder.js';
import { spawnFailureReason } from '../net/unreachable-reason.js';
import { openLocalCa } from '../net/ca/local-ca.js';
import { proxyEnvironment } from '../net/ca/proxy-environment.js';
import { writeTrustBundle } from '../net/ca/trust-bundle.js';

/**
 * The environment of `record --forward -- <command>`: ours with the variables `ca --env` prints
 * (proxyEnvironment: the proxy, NODE_USE_ENV_PROXY, the local CA for Node and, as a bundle with the
 * system's CAs, for the tools whose variable replaces their CA list), so the command and a shell that
 * evaluated `ca --env` see the same proxy and the same trust.
 */
export async function forwardChildEnvironment(proxyUrl: string, caDir: string, base: NodeJS.ProcessEnv = process.env): Promise<NodeJS.ProcessEnv> {
  const ca = await openLocalCa({ dir: caDir });
  const bundle = writeTrustBundle(ca, base);
  return { ...base, ...Object.fromEntries(proxyEnvironment({ proxyUrl, ca, bundleFile: bundle.file })) };
}

export interface ForwardChild {
  /** Resolves with what `record --forward -- <command>` exits with: the child's code, 128 + n for signal n, 127 if it could not start. */
  readonly exited: Promise<{ code: number; error?: string }>;
  /** Passes a signal on to the child (the recorder is being stopped; child-signals.ts says which are). */
  kill(signal: NodeJS.Signals): void;
}

/**
 * Runs the command with `env`, its stdin, stdout and stderr ours (it keeps the terminal), in our
 * process group, so a Ctrl-C on the terminal reaches it as it would without the proxy.
 */
export function runForwardChild(command: readonly string[], env: NodeJS.ProcessEnv): ForwardChild {
  const child = spawn(command[0], command.slice(1), { env, stdio: 'inherit' });
  const exited = new Promise<{ code: number; error?: string }>((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      // Only a failed start reports here without an exit.
      if (child.pid === undefined) resolve({ code: 127, error: `could not start ${command[0]}: ${spawnFailureReason(error)}` });
    });
    child.once('exit', (code, signal) => resolve({ code: exitCodeOf(code, signal) }));
  });
  return {
    exited,
    kill(signal) {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) child.kill(signal);
    },
  };
}
