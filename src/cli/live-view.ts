import type { LiveEvent, LiveListener } from '../capture/live-events.js';
import type { RecordingTotals } from '../capture/start-recorder.js';
import type { Style } from './style.js';

export interface LiveViewOptions {
  json: boolean;
  quiet: boolean;
  style: Style;
  startedAt: Date;
  /** Running totals for the status line. */
  totals: () => RecordingTotals;
}

/**
 * Prints one line per exchange and per invalid message, mitmdump style, to stdout; with --json,
 * one NDJSON object per event. On a TTY a status line on stderr keeps running totals.
 */
export function createLiveView(options: LiveViewOptions): { listener: LiveListener; clearStatus(): void } {
  const statusOn = !options.json && !options.quiet && Boolean(process.stderr.isTTY);
  let statusShown = false;
  const clearStatus = () => {
    if (statusShown) process.stderr.write('\r\x1b[2K');
    statusShown = false;
  };
  const drawStatus = () => {
    if (!statusOn) return;
    const t = options.totals();
    process.stderr.write(`\r\x1b[2K${options.style.dim(`[${t.exchanges} exchanges · ${t.messages} messages · ${t.invalid} invalid · ${t.findings} findings]`)}`);
    statusShown = true;
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
  return { listener, clearStatus };
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
    return `${time}    ${style.red('✗')} #${event.exchangeId} ${event.sender === 'client' ? '→' : '←'} ${event.label} ${style.red('invalid')}: ${first ? `${first.rule} at ${first.pointer || '/'}: ${first.message}` : ''}${more}`;
  }
  const status = event.status === undefined ? '---' : event.status >= 400 ? style.red(String(event.status)) : String(event.status);
  const verdict = event.invalid > 0 ? style.red(`${event.invalid} invalid`) : style.green('valid');
  const outcome = event.outcome === 'complete' ? '' : ` ${style.yellow(event.outcome)}`;
  const what = `${event.method ?? ''} ${event.path ?? ''}`.trim();
  return `${time} #${event.exchangeId} ${style.bold(what)} ${status} ${event.transport}${event.protocol ? `/${event.protocol}` : ''} ${event.messages} msg ${verdict}${outcome} ${style.dim(`${Math.round(event.durationMs)}ms`)}`;
}
