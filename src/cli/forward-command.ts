import { LINE_PREFIX } from '../core/program-name.js';
import { forwardChildEnvironment, runForwardChild } from './forward-child.js';

/**
 * `replay --forward -- <command …>` and `fixture --forward -- <command …>`: runs the command with
 * the environment `record --forward -- <command>` gives it (forwardChildEnvironment: the proxy at
 * `proxyUrl`, the local CA in `caDir`), keeping our stdio; a stop signal is passed on to it. Resolves
 * with its exit code (128 + n for signal n, 127 when it could not start, said on stderr).
 */
export async function runThroughForwardProxy(command: readonly string[], proxyUrl: string, caDir: string, stopped: Promise<NodeJS.Signals>): Promise<number> {
  const child = runForwardChild(command, await forwardChildEnvironment(proxyUrl, caDir));
  void stopped.then((signal) => child.kill(signal));
  const exit = await child.exited;
  if (exit.error) process.stderr.write(`${LINE_PREFIX}${exit.error}\n`);
  return exit.code;
}
