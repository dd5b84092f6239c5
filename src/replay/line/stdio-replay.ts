import type { Readable, Writable } from 'node:stream';
import { once } from 'node:events';
import { UsageError } from '../../core/errors.js';
import { upstreamEndedFirst } from '../../core/exchange-ending.js';
import { openRecording } from '../../store/open-recording.js';
import { SYSTEM_CLOCK, type Clock } from '../clock.js';
import { parseIgnoreOption } from '../../core/field-specs.js';
import { LineInbox, lineFaultsOf, planLines, playLineConversation, type LineMiss } from './line-conversation.js';
import { loadReplayScript, type ScriptExchange, type ScriptMessage } from '../replay-script.js';
import { lineMissAnswer, lineMissMessage, recordedMethodsOf } from './stdio-miss.js';
import { maxRequestBytesOf } from '../http/request-limits.js';
import { parseTiming, type Timing } from '../timing.js';
import { LINE_PREFIX } from '../../core/program-name.js';
import { FaultPlan, type FaultTally } from '../fault/fault-plan.js';
import { parseFault, type FaultSpec } from '../fault/fault-spec.js';

export interface StdioReplayOptions {
  recording: string;
  /** `recorded` (default), `none`, or a speed such as `2x`. */
  timing?: string | Timing;
  ignore?: string[];
  /** `ok` is false when a line missed or a recorded client line never came. */
  strict?: boolean;
  /** Longest client line held to match it, in bytes (default 10 MiB); a longer one is a miss. */
  maxRequestBytes?: number;
  /** Which recorded stdio exchange to play (its id); default the first. */
  exchange?: number;
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
  /** Told about every miss (default: one line on stderr). */
  onMiss?: (miss: LineMiss, message: string) => void;
  signal?: AbortSignal;
  /** What the pacing runs on (default: the system clock). */
  clock?: Clock;
  /**
   * Faults to inject into the session, as `--fault` specs or already parsed: `latency` before the
   * first agent line, `gap` before each later one, `exit=<code>,after=<n>` to stop after n agent
   * lines as if the agent had exited with that code (`exitCode` of the result).
   */
  faults?: readonly (string | FaultSpec)[];
}

export interface StdioReplayResult {
  exchangeId: number;
  /** Agent lines written (stdout and stderr). */
  sent: number;
  misses: LineMiss[];
  /** Recorded client lines that never came before stdin ended. */
  unused: ScriptMessage[];
  substitutions: number;
  /** Live values that matched a value the recording redacted. */
  redacted: number;
  /** False when `strict` was asked for and something missed or went unused. */
  ok: boolean;
  /**
   * Set when the replayed agent exits on its own: the code of an injected `exit` fault, or the
   * recorded agent's code where it exited before its stdin ended.
   */
  exitCode?: number;
  /** Every `faults` spec, in the order given, with how often it was injected (0 or 1: one session). */
  faults: FaultTally[];
}

/** The recorded stdio exchange to play: `id`, or the first. */
export function stdioExchangeOf(exchanges: readonly ScriptExchange[], id: number | undefined, file: string): ScriptExchange {
  const stdio = exchanges.filter((e) => e.transport === 'stdio');
  const chosen = id === undefined ? stdio[0] : stdio.find((e) => e.id === id);
  if (!chosen) {
    throw new UsageError(id === undefined ? `${file} holds no stdio exchange (record one with agent-proxy record --stdio)` : `${file} has no stdio exchange #${id}`);
  }
  return chosen;
}

/**
 * `proxy replay --stdio`: behaves like the recorded agent on our own stdin and stdout. It waits for
 * each recorded client line, compares it after normalization (JSON-RPC and Pi command ids learnt and
 * substituted) and writes the agent lines that followed, at the chosen pace; recorded stderr lines go
 * to stderr. A line that matches nothing gets the protocol's error answer and is reported on stderr.
 * Resolves when stdin ends (or `signal` aborts, or stdout closes: the reader is gone), or where the
 * recorded agent exited before its stdin ended: after its last line, with its code as `exitCode`.
 */
export async function replayStdio(options: StdioReplayOptions): Promise<StdioReplayResult> {
  const timing = typeof options.timing === 'object' ? options.timing : parseTiming(options.timing);
  const ignore = parseIgnoreOption(options.ignore ?? []);
  const maxLineBytes = maxRequestBytesOf(options.maxRequestBytes);
  const script = await loadReplayScript(options.recording);
  const exchange = stdioExchangeOf(script.exchanges, options.exchange, script.file);
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const report = options.onMiss ?? ((_miss: LineMiss, message: string) => void stderr.write(`${LINE_PREFIX}${message}\n`));
  const recordedMethods = recordedMethodsOf(exchange.messages);
  stdout.on('error', () => undefined);
  stderr.on('error', () => undefined);
  const inbox = new LineInbox(stdin, maxLineBytes);
  // The session stops when asked to, or when its reader is gone (its stdout closed): nothing more can
  // reach it, so a line held by the pace or a fault is not waited for.
  const session = new AbortController();
  const stop = () => {
    session.abort();
    inbox.close();
  };
  if (options.signal?.aborted) stop();
  options.signal?.addEventListener('abort', stop, { once: true });
  stdout.once('close', stop);
  const plan = new FaultPlan((options.faults ?? []).map((fault) => (typeof fault === 'string' ? parseFault(fault) : fault)));
  const chosen = plan.choose({ transport: 'stdio', method: '', path: '' });

  const result = await playLineConversation(planLines(exchange.messages), inbox, {
    protocol: exchange.protocol,
    ignore,
    timing,
    clock: options.clock ?? SYSTEM_CLOCK,
    anchorMs: exchange.startedMs,
    signal: session.signal,
    faults: lineFaultsOf(chosen, chosen.exit?.after),
    peerEnds: upstreamEndedFirst(exchange.errorCode),
    write: (bytes, message) => writeTo(message.channel === 'stderr' ? stderr : stdout, bytes),
    onMiss(miss) {
      report(miss, lineMissMessage(miss));
      return lineMissAnswer(exchange.protocol, miss, { recordedMethods });
    },
  });
  options.signal?.removeEventListener('abort', stop);
  stdout.off('close', stop);
  // The replayed agent has exited: nothing more is read.
  if (result.faulted || result.peerEnded) inbox.close();
  const exitCode = result.faulted && chosen.exit ? chosen.exit.code : result.peerEnded ? recordedExitCode(script.file, exchange.id) : undefined;
  return {
    exchangeId: exchange.id,
    sent: result.sent,
    misses: result.misses,
    unused: result.unused,
    substitutions: result.substitutions,
    redacted: result.redacted,
    ok: !options.strict || (result.misses.length === 0 && result.unused.length === 0),
    ...(exitCode === undefined ? {} : { exitCode }),
    faults: plan.tally(),
  };
}

/** The exit code the recorded agent exited with (1 when none was stored). */
function recordedExitCode(file: string, exchangeId: number): number {
  const reader = openRecording(file);
  try {
    return reader.exchange(exchangeId)?.exitCode ?? 1;
  } finally {
    reader.close();
  }
}

/** Writes and, when the pipe is full, waits until it has drained (or closed). */
export async function writeTo(stream: Writable, bytes: Buffer): Promise<void> {
  if (stream.destroyed || stream.writableEnded) return;
  if (stream.write(bytes)) return;
  const settled = new AbortController();
  try {
    await Promise.race([once(stream, 'drain', { signal: settled.signal }), once(stream, 'close', { signal: settled.signal }), once(stream, 'error', { signal: settled.signal })]);
  } catch {
    // The stream failed or closed: the caller's next write is dropped.
  } finally {
    settled.abort();
  }
}
