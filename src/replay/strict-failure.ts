import { count } from '../core/plural.js';
import { missMessage } from './miss-message.js';
import type { ReplaySummary } from './start-replay.js';

/**
 * The summary strictFailure reads: a replay's, or a fixture's (which names its `mode`). `strict` is
 * whether the replay was started strict; absent, it is not said.
 */
export type StrictFailureInput = Pick<ReplaySummary, 'misses' | 'unused'> & { strict?: boolean; mode?: string };

/**
 * What `strict` fails a replay for, as text a test can throw: one line per request or frame that
 * missed and per recorded exchange never used. Undefined when there is neither. The first line
 * names how the replay was started, as its caller wrote it: `replay (strict: true)` for
 * `startReplay`, `fixture (mode once, strict: true)` for `startFixture`, and no `strict` for one
 * started without it (whose summary is `ok` whatever missed).
 */
export function strictFailure(summary: StrictFailureInput): string | undefined {
  const { misses, unused } = summary;
  if (misses.length === 0 && unused.length === 0) return undefined;
  const lines = [`${startedAs(summary)}: ${count(misses.length, 'miss', 'misses')}, ${count(unused.length, 'recorded exchange')} unused`];
  for (const miss of misses) lines.push(`  miss: ${missMessage(miss)}`);
  for (const e of unused) lines.push(`  unused: #${e.id} ${[e.method, e.path].filter(Boolean).join(' ')}${e.query ? '?' + e.query : ''}`);
  return lines.join('\n');
}

function startedAs(summary: StrictFailureInput): string {
  const settings = [...(summary.mode === undefined ? [] : [`mode ${summary.mode}`]), ...(summary.strict ? ['strict: true'] : [])];
  return `${summary.mode === undefined ? 'replay' : 'fixture'}${settings.length > 0 ? ` (${settings.join(', ')})` : ''}`;
}
