import { spawn } from 'node:child_process';
import { exitCodeOf } from '../record/relay/stdio-recorder.js';
import { spawnFailureReason } from '../net/unreachable-reason.js';

/**
 * The variables that send a child's HTTP clients through the forward proxy at `proxyUrl`: both
 * spellings of HTTP_PROXY and HTTPS_PROXY (curl and Python read the lower-case ones), and
 * NODE_USE_ENV_PROXY=1, without which Node's own fetch and http ignore them (docs/forward.md). NO_PROXY
 * is the user's own when set (either spelling), else empty: local services are recorded too.
 * NODE_EXTRA_CA_CERTS adds the local CA (`caFile`) to what Node trusts; the variables that would
 * replace a tool's whole trust store (SSL_CERT_FILE …) are left to the user (`ca --env`).
 */
export function proxyEnvironment(proxyUrl: string, caFile: string, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const noProxy = base.NO_PROXY ?? base.no_proxy ?? '';
  return {
    ...base,
    HTTP_PROXY: proxyUrl,
    HTTPS_PROXY: proxyUrl,
    http_proxy: proxyUrl,
    https_proxy: proxyUrl,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
    NODE_USE_ENV_PROXY: '1',
    NODE_EXTRA_CA_CERTS: caFile,
  };
}

export interface ForwardChild {
  /** Resolves with what `record --forward -- <command>` exits with: the child's code, 128 + n for signal n, 127 if it could not start. */
  readonly exited: Promise<{ code: number; error?: string }>;
  /** Passes a signal on to the child (the recorder is being stopped). */
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
