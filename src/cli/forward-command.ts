import { LINE_PREFIX } from '../core/program-name.js';
import { passStopSignals } from './child-signals.js';
import { forwardChildEnvironment, runForwardChild } from './forward-child.js';

/**
 * `record`, `replay` and `fixture --forward -- <command …>`: runs the command with the environment
 * `ca --env` describes (forwardChildEnvironment: the proxy at `proxyUrl`, the local CA in `caDir`),
 * keeping our stdio; the stop signals reach it once each (passStopSignals). With
 * `proxyAuth` (`--proxy-auth user:pass`) the proxy URL carries the credentials, as curl, undici and
 * Python's clients read them, so the command is let in. Resolves with its exit code (128 + n for
 * signal n, 127 when it could not start, said on stderr).
 */
export async function runThroughForwardProxy(command: readonly string[], proxyUrl: string, caDir: string, proxyAuth?: string): Promise<number> {
  const child = runForwardChild(command, await forwardChildEnvironment(withCredentials(proxyUrl, proxyAuth), caDir));
  const stopPassing = passStopSignals(child);
  const exit = await child.exited;
  stopPassing();
  if (exit.error) process.stderr.write(`${LINE_PREFIX}${exit.error}\n`);
  return exit.code;
}

/** `http://user:pass@host:port`: the proxy's URL with the Basic credentials it asks for, each part percent-encoded. */
function withCredentials(proxyUrl: string, proxyAuth: string | undefined): string {
  if (proxyAuth === undefined) return proxyUrl;
  const colon = proxyAuth.indexOf(':');
  const url = new URL(proxyUrl);
  url.username = encodeURIComponent(proxyAuth.slice(0, colon));
  url.password = encodeURIComponent(proxyAuth.slice(colon + 1));
  return url.href;
}
