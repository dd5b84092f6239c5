import { UsageError } from '../core/errors.js';
import { httpExchanges, wsExchanges, type ReplayScript } from './replay-script.js';

/**
 * What a refusal or warning tells the user to do, in the words of what they ran: `replay`'s flags,
 * or the fixture's (which serves through replay but is started with other flags).
 */
export interface ServeHints {
  /** What would serve nothing: `replay`, `the fixture`. */
  server: string;
  /** How to fill an empty recording. */
  fill: string;
  /** The command that serves the exchanges of each transport HTTP replay does not serve. */
  servedBy: Readonly<Record<string, string>>;
}

export const REPLAY_HINTS: ServeHints = {
  server: 'replay',
  fill: 'add --on-miss passthrough --target <url>',
  servedBy: { stdio: 'replay --stdio (on its own stdin/stdout)', ndjson: 'replay --ndjson --listen unix:/path.sock' },
};

/**
 * What `replay` over HTTP would serve of `script`, said before it starts instead of serving
 * nothing without a word: a recording with no exchanges, or with only stdio or NDJSON-socket ones,
 * is refused with the command that serves it (an empty one is fine with passthrough, which fills
 * it). Returns the warnings to print: exchanges this replay leaves out.
 */
export function checkServable(script: ReplayScript, file: string, passthroughTarget: string | undefined, hints: ServeHints = REPLAY_HINTS): string[] {
  const served = httpExchanges(script).length + wsExchanges(script).length;
  if (script.exchanges.length === 0) {
    if (passthroughTarget === undefined) {
      throw new UsageError(`${file}: the recording holds no exchanges, so ${hints.server} would serve nothing (to fill it, ${hints.fill})`);
    }
    return [`${file} holds no exchanges: every request is forwarded to ${passthroughTarget}`];
  }
  const others = new Map<string, number>();
  for (const e of script.exchanges) {
    if (e.transport in hints.servedBy) others.set(e.transport, (others.get(e.transport) ?? 0) + 1);
  }
  if (served === 0) {
    const [transport] = [...others.keys()];
    const protocols = [...new Set(script.exchanges.map((e) => e.protocol ?? e.transport))].join(', ');
    throw new UsageError(`${file}: the recording holds only ${transport} exchanges (${protocols}), which ${hints.server} over HTTP cannot serve; use ${hints.servedBy[transport]}`);
  }
  return [...others].map(([transport, count]) => `${file}: ${count} ${transport} exchange${count === 1 ? ' is' : 's are'} not served over HTTP; ${hints.servedBy[transport]} serves ${count === 1 ? 'it' : 'them'}`);
}
