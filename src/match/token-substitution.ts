/** One value the recorded response echoed, and what the live request has in its place. */
export interface CorrelationPair {
  /** The echo field it came from (`/runId`, `header:x-request-id`). */
  field: string;
  /** The JSON key that held it, when it came from a body: numbers are only replaced after this key. */
  key: string | undefined;
  recorded: string | number;
  live: string | number;
}

/**
 * Rewrites recorded bytes so they carry the live ids, every pair in ONE pass: replacing pair after
 * pair would chain shifted ids (recorded 0, 1 → live 1, 2 would turn `"id":0` into `"id":2`), which
 * is the common case for JSON-RPC and Pi command ids. A string is replaced as its exact JSON token,
 * a number only as the value of the key it was learnt from; every other byte stays as recorded.
 */
export function substituteOnce(raw: Buffer, pairs: readonly CorrelationPair[], onUsed?: (pair: CorrelationPair) => void): Buffer {
  const patterns: string[] = [];
  const usable: CorrelationPair[] = [];
  for (const pair of pairs) {
    if (typeof pair.recorded === 'string') patterns.push(`(${escapeRegExp(latin1Json(pair.recorded))})`);
    else if (pair.key !== undefined) patterns.push(`(${escapeRegExp(latin1Json(pair.key))}\\s*:\\s*${escapeRegExp(String(pair.recorded))}(?=\\s*[,}\\]]))`);
    else continue;
    usable.push(pair);
  }
  if (usable.length === 0) return raw;
  // latin1 maps each byte to one char and back, so non-UTF-8 bytes survive untouched.
  const before = raw.toString('latin1');
  const after = before.replace(new RegExp(patterns.join('|'), 'g'), (match: string, ...groups: unknown[]) => {
    const index = groups.findIndex((g, i) => i < usable.length && g !== undefined);
    const pair = usable[index];
    onUsed?.(pair);
    if (typeof pair.recorded === 'string') return latin1Json(pair.live);
    // Keep the `"key":` prefix as it was; only the number after it changes.
    return match.slice(0, match.length - String(pair.recorded).length) + latin1Json(pair.live);
  });
  return after === before ? raw : Buffer.from(after, 'latin1');
}

/** The UTF-8 bytes of a value's JSON token, as a latin1 string (one char per byte). */
function latin1Json(value: string | number): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('latin1');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
