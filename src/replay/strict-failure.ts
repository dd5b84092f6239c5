import { missMessage } from './miss-message.js';
import type { ReplaySummary } from './start-replay.js';

/**
 * What `--strict` fails a replay for, as text a test can throw: one line per request or frame that
 * missed and per recorded exchange never used. Undefined when there is neither.
 */
export function strictFailure(summary: Pick<ReplaySummary, 'misses' | 'unused'>): string | undefined {
  const { misses, unused } = summary;
  if (misses.length === 0 && unused.length === 0) return undefined;
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const lines = [`replay --strict: ${count(misses.length, 'miss', 'misses')}, ${count(unused.length, 'recorded exchange', 'recorded exchanges')} unused`];
  for (const miss of misses) lines.push(`  miss: ${missMessage(miss)}`);
  for (const e of unused) lines.push(`  unused: #${e.id} ${[e.method, e.path].filter(Boolean).join(' ')}${e.query ? '?' + e.query : ''}`);
  return lines.join('\n');
}
