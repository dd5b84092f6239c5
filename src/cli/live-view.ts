import { stoppedLine, type LiveEvent, type LiveListener, type RecordingStopped, type StoppedListener } from '../record/live-events.js';
import type { RecordingTotals } from '../record/start-recorder.js';
import type { Style } from '../core/style.js';
import { totalsText } from './totals-text.js';
import { exchangeVerdict } from '../core/exchange-verdict.js';
import { outcomeText } from '../core/exchange-ending.js';
import { styledVerdict } from './verdict-text.js';
import { LINE_PREFIX } from '../core/program-name.js';
import { findingPlace } from '../protocols/finding-place.js';

export interface LiveViewOptions {
  json: boolean;
  quiet: boolean;
  style: Style;
  startedAt: Date;
  /** Running totals for the status line; without them, no status line. */
  totals?: () => RecordingTotals;
}

export interface LiveView {
  listener: LiveListener;
  /** Recording stopped while traffic is still forwarded: said at once, whatever --quiet says. */
  stopped: StoppedListener;
  clearStatus(): void;
}

/**
 * Prints one line per exchange and per invalid message, mitmdump style, to stdout; with --json,
 * one NDJSON object per event. On a TTY a status line on stderr keeps running totals.
 */
export function createLiveView(options: LiveViewOptions): LiveView {
  const totals = options.json || options.quiet || !process.stderr.isTTY ? undefined : options.totals;
  let statusShown = false;
  const reasons: Array<RecordingStopped['reason']> = [];
  const clearStatus = () => {
    if (statusShown) process.stderr.write('\r\x1b[2K');
    statusShown = false;
  };
  const drawStatus = () => {
    if (!totals) return;
    process.stderr.write(`\r\x1b[2K${statusText(totals(), reasons.at(-1), options.style)}`);
    statusShown = true;
  };
  const stopped: StoppedListener = (event) => {
    if (reasons.includes(event.reason)) return;
    reasons.push(event.reason);
    clearStatus();
    process.stderr.write(`${LINE_PREFIX}${stoppedLine(event)}\n`);
    if (options.json) process.stdout.write(JSON.stringify({ event: 'recording-stopped', ...event }) + '\n');
    drawStatus();
  };
  const listener: LiveListener = (event) => {
    if (options.quiet) return;
    if (options.json) {
      process.stdout.write(JSON.stringify({ event: event.type === 'exchange-end' ? 'exchange' : 'invalid', ...withoutType(event) }) + '\n');
      return;
    }
    clearStatus();
    process.stdout.write(formatEvent(event, options) + '\n');
    drawStatus();
  };
  return { listener, stopped, clearStatus };
}

/** The status line: running totals, and, once recording has stopped, that it has. */
export function statusText(t: RecordingTotals, stopped: RecordingStopped['reason'] | undefined, style: Style): string {
  const totals = style.dim(`[${totalsText(t, ' · ')}]`);
  if (stopped === undefined) return totals;
  return `${totals} ${style.red(stopped === 'write-failed' ? 'recording stopped: a write failed' : 'recording stopped: the recorder ended')}`;
}

function withoutType(event: LiveEvent): Record<string, unknown> {
  const { type: _type, ...rest } = event;
  return rest;
}

function clockTime(startedAt: Date, offsetMs: number): string {
  return new Date(startedAt.getTime() + offsetMs).toISOString().slice(11, 23);
}

export function formatEvent(event: LiveEvent, options: Pick<LiveViewOptions, 'style' | 'startedAt'>): string {
  const { style } = options;
  const time = style.dim(clockTime(options.startedAt, event.tOffsetMs));
  if (event.type === 'invalid-message') {
    const first = event.findings.find((f) => f.severity === 'error') ?? event.findings[0];
    const more = event.findings.length > 1 ? style.dim(` (+${event.findings.length - 1} more)`) : '';
    return `${time}    ${style.red('✗')} #${event.exchangeId} ${event.sender === 'client' ? '→' : '←'} ${event.label} ${style.red('invalid')}: ${first ? `${first.rule} ${findingPlace(first)}: ${first.message}` : ''}${more}`;
  }
  const status = event.status === undefined ? '---' : event.status >= 400 ? style.red(String(event.status)) : String(event.status);
  const verdict = styledVerdict(exchangeVerdict(event), style);
  const why = event.outcome === 'error' && event.errorMessage ? `: ${event.errorMessage}` : '';
  const outcome = event.outcome === 'complete' ? '' : ` ${style.yellow(outcomeText(event.outcome, event.errorCode) + why)}`;
  const what = `${event.method ?? ''} ${event.path ?? ''}`.trim();
  const unstored = event.stored === false ? ` ${style.red('not stored')}` : '';
  return `${time} #${event.exchangeId} ${style.bold(what)} ${status} ${event.transport}${event.protocol ? `/${event.protocol}` : ''} ${event.messages} msg ${verdict}${outcome}${unstored} ${style.dim(`${Math.round(event.durationMs)}ms`)}`;
}

/** Closes a recorder; a recording that could not be completed gives its totals so far and the error. */
export async function closedRecording(recorder: { close(): Promise<RecordingTotals>; totals(): RecordingTotals }): Promise<{ totals: RecordingTotals; error?: Error }> {
  try {
    return { totals: await recorder.close() };
  } catch (error) {
    return { totals: recorder.totals(), error: error as Error };
  }
}
