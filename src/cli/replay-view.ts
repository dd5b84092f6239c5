import { redactedMatched } from '../core/redacted.js';
import { missMessage } from '../replay/miss-message.js';
import type { ReplayLog, ReplayMiss, ServedExchange } from '../replay/replay-context.js';
import type { ReplaySummary } from '../replay/start-replay.js';
import type { Style } from '../core/style.js';
import { count } from '../core/plural.js';

/**
 * What `proxy replay` prints while it runs: one line per served exchange (not with --quiet) and one
 * per miss (always: a miss is what a test run needs to see); with --json, one NDJSON object each.
 */
export function createReplayView(options: { json: boolean; quiet: boolean; style: Style }): ReplayLog {
  const print = (line: string) => process.stdout.write(line + '\n');
  return {
    served(event: ServedExchange) {
      if (options.quiet) return;
      if (options.json) return print(JSON.stringify({ event: 'served', ...event }));
      print(formatServed(event, options.style));
    },
    miss(miss: ReplayMiss) {
      if (options.json) return print(JSON.stringify({ event: 'miss', ...miss }));
      print(`${options.style.red('miss')} ${missMessage(miss)}${miss.action === 'passthrough' ? ' -> forwarded' : ''}`);
    },
  };
}

export function formatServed(event: ServedExchange, style: Style): string {
  const parts = [`#${event.exchangeId}`, event.method, event.path, String(event.status ?? '-'), event.transport, count(event.messages, 'message')];
  if (event.substitutions > 0) parts.push(`${count(event.substitutions, 'id')} substituted`);
  if (event.redacted > 0) parts.push(redactedMatched(event.redacted));
  if (event.reused) parts.push(style.yellow('reused'));
  if (event.recordingCutBy !== undefined) parts.push(style.yellow(event.recordingCutBy === 'client' ? '(the recording was cut by its client)' : '(the recording was cut by proxy shutdown)'));
  return parts.join(' ');
}

export function formatSummary(signal: string, summary: ReplaySummary, served: number, style: Style): string {
  // Unused exchanges fail only --strict, but a replay nobody asked anything of must not pass unnoticed.
  const lines = [`stopped (${signal}): ${served} served, ${count(summary.misses.length, 'miss', 'misses')}, ${summary.unused.length} of ${count(summary.recorded, 'recorded exchange')} unused`];
  if (!summary.ok) {
    lines.push(style.red(`--strict: ${count(summary.misses.length, 'miss', 'misses')} and ${count(summary.unused.length, 'unused exchange')}`));
    for (const e of summary.unused) lines.push(`  unused #${e.id} ${e.method ?? ''} ${e.path ?? ''}${e.query ? '?' + e.query : ''}`);
  }
  if (summary.missesOut) {
    const { file, appended, totals } = summary.missesOut;
    lines.push(
      appended
        ? `${count(totals.exchanges, 'forwarded miss', 'forwarded misses')} appended to ${file} (new episodes, served from the next replay on)`
        : `${count(totals.exchanges, 'forwarded miss', 'forwarded misses')} recorded to ${file}`,
    );
  }
  return lines.join('\n');
}
