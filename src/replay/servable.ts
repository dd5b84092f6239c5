import { UsageError } from '../core/errors.js';
import { httpExchanges, wsExchanges, type ReplayScript } from './replay-script.js';

/** The command that serves exchanges of a transport HTTP replay does not serve. */
const SERVED_BY: Record<string, string> = {
  stdio: 'replay --stdio (on its own stdin/stdout)',
  ndjson: 'replay --ndjson --listen unix:/path.sock',
};

/**
 * What `replay` over HTTP would serve of `script`, said before it starts instead of serving
 * nothing without a word: a recording with no exchanges, or with only stdio or NDJSON-socket ones,
 * is refused with the command that serves it (an empty one is fine with passthrough, which fills
 * it). Returns the warnings to print: exchanges this replay leaves out.
 */
export function checkServable(script: ReplayScript, file: string, passthroughTarget: string | undefined): string[] {
  const served = httpExchanges(script).length + wsExchanges(script).length;
  if (script.exchanges.length === 0) {
    if (passthroughTarget === undefined) {
      throw new UsageError(`${file}: the recording holds no exchanges, so replay would serve nothing (to fill it, add --on-miss passthrough --target <url>)`);
    }
    return [`${file} holds no exchanges: every request is forwarded to ${passthroughTarget}`];
  }
  const others = new Map<string, number>();
  for (const e of script.exchanges) {
    if (e.transport in SERVED_BY) others.set(e.transport, (others.get(e.transport) ?? 0) + 1);
  }
  if (served === 0) {
    const [transport] = [...others.keys()];
    const protocols = [...new Set(script.exchanges.map((e) => e.protocol ?? e.transport))].join(', ');
    throw new UsageError(`${file}: the recording holds only ${transport} exchanges (${protocols}), which replay over HTTP cannot serve; use ${SERVED_BY[transport]}`);
  }
  return [...others].map(([transport, count]) => `${file}: ${count} ${transport} exchange${count === 1 ? ' is' : 's are'} not served over HTTP; ${SERVED_BY[transport]} serves ${count === 1 ? 'it' : 'them'}`);
}
