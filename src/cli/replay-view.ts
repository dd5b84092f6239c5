import { redactedMatched } from '../core/redacted.js';
import { missMessage } from '../replay/miss-message.js';
import type { ReplayLog, ReplayMiss, ServedExchange } from '../replay/replay-context.js';
import type { ReplaySummary } from '../replay/start-replay.js';
import type { Style } from '../core/style.js';
import { count } from '../core/plural.js';
import type { FaultTally } from '../replay/fault/fault-plan.js';

/**
 * What `proxy replay` prints while it runs: one line per served exchange (not with --quiet) and one
 * per miss (always: a miss is what a test run needs to see); with --json, one NDJSON object each.
 */
export function createReplayView(options: { json: boolean; quiet: boolean; style: Style; print?: (line: string) => void }): ReplayLog {
  const print = options.print ?? ((line: string) => process.stdout.write(line + '\n'));
  return {
    served(event: ServedExchange) {
      if (options.quiet) return;
      if (options.json) return print(JSON.stringify({ event: 'served', ...event }));
      print(formatServed(event, options.style));
    },
    miss(miss: ReplayMiss) {
      if (options.json) return print(JSON.stringify({ event: 'miss', ...miss }));
      const faults = miss.faults ? ` ${options.style.yellow(`fault ${faultList(miss.faults)}`)}` : '';
      print(`${options.style.red('miss')} ${missMessage(miss)}${miss.action === 'passthrough' ? ' -> forwarded' : ''}${faults}`);
    },
  };
}

export function formatServed(event: ServedExchange, style: Style): string {
  if (event.faultStatus !== undefined) {
    const instead = event.exchangeId === null ? 'a request that matched nothing' : `#${event.exchangeId}, kept for the next request`;
    return `${style.yellow('fault')} ${event.method} ${event.path} ${event.faultStatus} ${faultList(event.faults)} (instead of ${instead})`;
  }
  const parts = [`#${event.exchangeId}`, event.method, event.path, String(event.status ?? '-'), event.transport, count(event.messages, 'message')];
  if (event.substitutions > 0) parts.push(`${count(event.substitutions, 'id')} substituted`);
  if (event.redacted > 0) parts.push(redactedMatched(event.redacted));
  if (event.reused) parts.push(style.yellow('reused'));
  if (event.recordingCutBy !== undefined) parts.push(style.yellow(event.recordingCutBy === 'client' ? '(the recording was cut by its client)' : '(the recording was cut by proxy shutdown)'));
  if (event.faults) parts.push(style.yellow(`fault ${faultList(event.faults)}`));
  return parts.join(' ');
}

/** The specs that changed one answer, as given: `status=503,nth=3` or `latency=1s + cut=reset,after=2`. */
function faultList(faults: readonly string[] | undefined): string {
  return (faults ?? []).join(' + ');
}

/**
 * The end-of-replay account of the `--fault` specs, one line each: how often it was injected, or
 * that it matched nothing (a likely typo in its path or count). Empty when none were given.
 */
export function faultTallyLines(faults: readonly FaultTally[], style: Style): string[] {
  return faults.map((f) => (f.injected === 0 ? style.yellow(`fault ${f.spec} matched nothing`) : `fault ${f.spec} injected ${count(f.injected, 'time')}`));
}

/** The end-of-replay lines; `signal` is what stopped it (`SIGINT`), or how the command it ran ended (`node exited 0`). */
export function formatSummary(signal: string, summary: ReplaySummary, served: number, style: Style): string {
  const ending = signal.startsWith('SIG') ? `stopped (${signal})` : signal;
  // Unused exchanges fail only --strict, but a replay nobody asked anything of must not pass unnoticed.
  const lines = [`${ending}: ${served} served, ${count(summary.misses.length, 'miss', 'misses')}, ${summary.unused.length} of ${count(summary.recorded, 'recorded exchange')} unused`];
  if (!summary.ok) {
    lines.push(style.red(`--strict: ${count(summary.misses.length, 'miss', 'misses')} and ${count(summary.unused.length, 'unused exchange')}`));
    for (const e of summary.unused) lines.push(`  unused #${e.id} ${e.method ?? ''} ${e.path ?? ''}${e.query ? '?' + e.query : ''}`);
  }
  lines.push(...faultTallyLines(summary.faults, style));
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
