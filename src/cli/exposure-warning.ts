import { parseListen } from '../net/addresses.js';
import { isLocalOnly } from '../net/loopback.js';
import { LINE_PREFIX } from '../core/program-name.js';

/** What a server started by the CLI hands to whoever can reach it. */
const EXPOSES = {
  record: 'can send requests through the proxy to the target and into the recording',
  replay: 'is served the recorded answers',
  inspector: 'can read the whole recording, through the page or its API',
} as const;

/**
 * One stderr line when a server listens where other machines can reach it (`0.0.0.0`, `::`, a
 * LAN address). Legitimate for record and replay (a container, a phone on the LAN), but never
 * something to do without noticing.
 */
export function warnIfReachable(what: keyof typeof EXPOSES, listen: string | undefined, url: string): void {
  if (listen === undefined || isLocalOnly(parseListen(listen))) return;
  process.stderr.write(`${LINE_PREFIX}warning: ${url} is reachable from other machines: anyone who can reach it ${EXPOSES[what]}\n`);
}
