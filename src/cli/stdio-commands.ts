import { appendFileSync, writeFileSync } from 'node:fs';
import { stoppedLine, type LiveEvent, type LiveListener, type StoppedListener } from '../record/live-events.js';
// Only light modules statically: the recorders and replayers load when their command runs (fast CLI start).
import { parseStdioProtocol } from '../record/pipeline/stdio-protocols.js';
import { UsageError } from '../core/errors.js';
import { redactedMatched } from '../core/redacted.js';
import { EXIT_FINDINGS, EXIT_OK } from './exit-codes.js';
import { closedRecording, formatEvent } from './live-view.js';
import { warnIfReachable } from './exposure-warning.js';
import { styleFor, type Style } from '../core/style.js';
import { count } from '../core/plural.js';
import { totalsText } from './totals-text.js';
import { refuseExistingRecording } from '../store/refuse-existing.js';
import { LINE_PREFIX } from '../core/program-name.js';
import { unmatchedFaultLine } from '../replay/fault/fault-notice.js';
import { parseFault } from '../replay/fault/fault-spec.js';
import type { ReportTarget } from '../report/report-targets.js';
import { emitReports, replayReport } from './report-flag.js';

/**
 * Where `--stdio` reports: stdout belongs to the protocol, so the live view goes to stderr, or, with
 * `--json-log <file>`, to that file as NDJSON (then stderr stays the child's).
 */
export interface SideChannel {
  listener: LiveListener | undefined;
  /** Recording stopped while the agent runs on: said at once, whatever --quiet says. */
  stopped: StoppedListener;
  /** One NDJSON event (json log) or one human line (stderr). */
  event(name: string, fields: Record<string, unknown>, human: string | undefined): void;
}

export function sideChannel(options: { jsonLog?: string; quiet?: boolean; overwrite?: boolean }, startedAt: Date): SideChannel {
  if (options.jsonLog) {
    const file = options.jsonLog;
    // A log of an earlier session is not replaced without --overwrite, like the recording itself.
    refuseExistingRecording(file, options.overwrite);
    writeFileSync(file, '');
    let failed = false;
    const write = (value: Record<string, unknown>) => {
      if (failed) return;
      try {
        appendFileSync(file, JSON.stringify(value) + '\n');
      } catch (error) {
        // A full disk must not end the agent's session: the log stops, once said, and the agent goes on.
        failed = true;
        process.stderr.write(`${LINE_PREFIX}cannot write --json-log ${file}, the live view is no longer written: ${(error as Error).message}\n`);
      }
    };
    return {
      listener: (e: LiveEvent) => {
        const { type, ...rest } = e;
        write({ event: type === 'exchange-end' ? 'exchange' : 'invalid', ...rest });
      },
      event: (name, fields) => write({ event: name, ...fields }),
      stopped: (e) => write({ event: 'recording-stopped', ...e }),
    };
  }
  const style: Style = styleFor(process.stderr);
  return {
    listener: options.quiet ? undefined : (e: LiveEvent) => void process.stderr.write(`${LINE_PREFIX}${formatEvent(e, { style, startedAt })}\n`),
    event: (_name, _fields, human) => {
      if (human !== undefined && !options.quiet) process.stderr.write(`${LINE_PREFIX}${human}\n`);
    },
    stopped: (e) => void process.stderr.write(`${LINE_PREFIX}${stoppedLine(e)}\n`),
  };
}

export interface StdioRecordFlags {
  out?: string;
  /** The file to name as the recording when `out` is a work copy of it (a fixture committed as NDJSON). */
  shownAs?: string;
  protocol: string;
  schemas: string[];
  maxBody?: number;
  redactFields?: string[];
  keepSecretsMatching?: string[];
  overwrite?: boolean;
  jsonLog?: string;
  quiet?: boolean;
}

/** `proxy record --stdio [...] -- <command> [args...]`; resolves to the exit code (the child's). */
export async function runStdioRecord(command: string[], flags: StdioRecordFlags): Promise<number> {
  if (command.length === 0) throw new UsageError('--stdio needs the agent command after --, e.g. agent-proxy record --stdio -- pi --mode rpc');
  const protocol = parseStdioProtocol(flags.protocol, '--protocol');
  const { startStdioRecorder } = await import('../record/relay/stdio-recorder.js');
  const startedAt = new Date();
  const side = sideChannel(flags, startedAt);
  const recorder = await startStdioRecorder({
    command: command[0],
    args: command.slice(1),
    out: flags.out,
    protocol,
    schemas: flags.schemas,
    maxBodyBytes: flags.maxBody,
    redactFields: flags.redactFields,
    keepSecretsMatching: flags.keepSecretsMatching,
    overwrite: flags.overwrite,
    listener: side.listener,
    onStopped: side.stopped,
  });
  const forward = (signal: NodeJS.Signals) => () => {
    side.event('signal', { signal }, undefined);
    recorder.kill(signal);
  };
  const onInt = forward('SIGINT');
  const onTerm = forward('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  try {
    await recorder.ready;
  } catch (error) {
    await recorder.done;
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
    throw error;
  }
  const out = flags.shownAs ?? recorder.out;
  side.event('started', { command, pid: recorder.child.pid, out }, `recording ${command.join(' ')} (pid ${recorder.child.pid ?? '-'}) to ${out}`);
  try {
    const result = await recorder.done;
    const { totals } = result;
    const how = result.signal ? `killed by ${result.signal}` : `exited ${result.exitCode}`;
    // An agent that never came up is said in one line, which --quiet and --json-log do not silence.
    side.event(
      'summary',
      { exitCode: result.exitCode, signal: result.signal, code: result.code, ...totals, out, ...(result.error ? { error: result.error } : {}) },
      result.error ? undefined : `${how}: ${count(totals.messages, 'message')}, ${totals.invalid} invalid, ${count(totals.findings, 'finding')} -> ${out}`,
    );
    if (result.error) process.stderr.write(`${LINE_PREFIX}${result.error} (recorded as upstream-unreachable in ${out})\n`);
    if (result.recordingError) process.stderr.write(`${LINE_PREFIX}${result.recordingError}\n`);
    return result.code;
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }
}

export interface NdjsonRecordFlags {
  target?: string;
  listen?: string;
  out?: string;
  /** The file to name as the recording when `out` is a work copy of it (a fixture committed as NDJSON). */
  shownAs?: string;
  schemas: string[];
  maxBody?: number;
  redactFields?: string[];
  keepSecretsMatching?: string[];
  overwrite?: boolean;
  json?: boolean;
  quiet?: boolean;
  listener?: LiveListener;
  onStopped?: StoppedListener;
  /** --shutdown-grace, already checked. */
  shutdownGraceMs?: number;
}

/** `proxy record --ndjson --target unix:… --listen unix:…`: runs until SIGINT/SIGTERM. */
export async function runNdjsonRecord(flags: NdjsonRecordFlags, waitForStop: Promise<NodeJS.Signals>): Promise<number> {
  if (!flags.target) throw new UsageError("--ndjson needs --target unix:/path/daemon.sock");
  if (!flags.listen) throw new UsageError('--ndjson needs --listen unix:/path/proxy.sock');
  const { startNdjsonRecorder } = await import('../record/relay/ndjson-relay.js');
  const recorder = await startNdjsonRecorder({
    target: flags.target,
    listen: flags.listen,
    out: flags.out,
    schemas: flags.schemas,
    maxBodyBytes: flags.maxBody,
    redactFields: flags.redactFields,
    keepSecretsMatching: flags.keepSecretsMatching,
    overwrite: flags.overwrite,
    listener: flags.quiet ? undefined : flags.listener,
    onStopped: flags.onStopped,
    shutdownGraceMs: flags.shutdownGraceMs,
  });
  warnIfReachable('record', flags.listen, recorder.url);
  const out = flags.shownAs ?? recorder.out;
  if (flags.json) process.stdout.write(JSON.stringify({ event: 'listening', url: recorder.url, target: recorder.target, out }) + '\n');
  else process.stdout.write(`listening on ${recorder.url} -> ${recorder.target}\n`);
  const signal = await waitForStop;
  const { totals, error } = await closedRecording(recorder);
  if (flags.json) process.stdout.write(JSON.stringify({ event: 'summary', signal, ...totals, out, ...(error ? { stored: false } : {}) }) + '\n');
  else process.stdout.write(`stopped (${signal}): ${totalsText(totals)} -> ${out}${error ? ' (incomplete)' : ''}\n`);
  if (error) throw error;
  return EXIT_OK;
}

export interface LineReplayFlags {
  timing?: string;
  maxRequestBytes?: number;
  strict?: boolean;
  ignore: string[];
  listen?: string;
  json?: boolean;
  quiet?: boolean;
  /** `--fault` specs, as given (already checked). */
  fault?: string[];
  /** `--report` targets (already checked), and which command they report for. */
  reports?: ReportTarget[];
  reportAs?: 'replay' | 'fixture';
  /** --shutdown-grace, already checked (with --ndjson). */
  shutdownGraceMs?: number;
}

/** `proxy replay --stdio <recording>`: plays the agent on our stdin/stdout until stdin ends, or an injected exit. */
export async function runStdioReplay(recording: string, flags: LineReplayFlags): Promise<number> {
  const { replayStdio } = await import('../replay/line/stdio-replay.js');
  const abort = new AbortController();
  const stop = () => abort.abort();
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    const result = await replayStdio({ recording, timing: flags.timing, strict: flags.strict, ignore: flags.ignore, maxRequestBytes: flags.maxRequestBytes, signal: abort.signal, faults: flags.fault });
    if (result.exitCode !== undefined) {
      const specs = result.faults.filter((f) => f.injected > 0 && parseFault(f.spec).action.kind === 'exit').map((f) => f.spec);
      if (specs.length > 0) process.stderr.write(`${LINE_PREFIX}fault injected: the replayed agent exits with code ${result.exitCode} (${specs.join('; ')})\n`);
      else if (!flags.quiet) process.stderr.write(`${LINE_PREFIX}the recorded agent exited here, before its stdin ended: the replay exits with its code ${result.exitCode}\n`);
    }
    if (!flags.quiet || !result.ok) {
      process.stderr.write(
        `${LINE_PREFIX}replay of #${result.exchangeId} ended: ${count(result.sent, 'line')} sent, ${count(result.misses.length, 'miss', 'misses')}, ${count(result.unused.length, 'recorded client line')} unused${result.substitutions > 0 ? `, ${count(result.substitutions, 'id')} substituted` : ''}${result.redacted > 0 ? `, ${redactedMatched(result.redacted)}` : ''}\n`,
      );
    }
    if (!result.ok) process.stderr.write(`${LINE_PREFIX}--strict: ${count(result.misses.length, 'miss', 'misses')} and ${count(result.unused.length, 'unused line')}\n`);
    for (const tally of result.faults) if (tally.injected === 0) process.stderr.write(`${LINE_PREFIX}${unmatchedFaultLine(tally.spec)}\n`);
    // stdout is the protocol's: GitHub's workflow commands go to stderr, which GitHub reads as well.
    await emitReports(() => replayReport(flags.reportAs ?? 'replay', recording, (o) => o.stdioReplayOutcome(result, Boolean(flags.strict))), flags.reports ?? [], { commandsOnStderr: true });
    if (result.exitCode !== undefined) {
      // The client may still be writing: stop reading so the process can end, once stdout has gone out.
      process.stdin.destroy();
      await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
      return result.exitCode;
    }
    return result.ok ? EXIT_OK : EXIT_FINDINGS;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

/** `proxy replay --ndjson <recording> --listen unix:…`: serves until SIGINT/SIGTERM. */
export async function runNdjsonReplay(recording: string, flags: LineReplayFlags, waitForStop: Promise<NodeJS.Signals>): Promise<number> {
  if (!flags.listen) throw new UsageError('--ndjson needs --listen unix:/path.sock');
  const { startNdjsonReplay } = await import('../replay/line/ndjson-replay.js');
  const print = (line: string) => process.stdout.write(line + '\n');
  const served: number[] = [];
  const replay = await startNdjsonReplay({
    recording,
    listen: flags.listen,
    timing: flags.timing,
    strict: flags.strict,
    ignore: flags.ignore,
    maxRequestBytes: flags.maxRequestBytes,
    faults: flags.fault,
    shutdownGraceMs: flags.shutdownGraceMs,
    log: {
      served: (e) => {
        served.push(e.exchangeId);
        if (flags.quiet) return;
        print(flags.json ? JSON.stringify({ event: 'served', ...e }) : `#${e.exchangeId} ndjson ${count(e.sent, 'line')} sent${e.substitutions > 0 ? ` ${count(e.substitutions, 'id')} substituted` : ''}${e.redacted > 0 ? ` ${redactedMatched(e.redacted)}` : ''}${e.misses > 0 ? ` ${count(e.misses, 'miss', 'misses')}` : ''}${e.faults ? ` fault ${e.faults.join(' + ')}` : ''}`);
      },
      miss: (message) => print(flags.json ? JSON.stringify({ event: 'miss', message }) : `miss ${message}`),
    },
  });
  warnIfReachable('replay', flags.listen, replay.url);
  print(flags.json ? JSON.stringify({ event: 'listening', url: replay.url, recording: replay.recording }) : `listening on ${replay.url}`);
  const signal = await waitForStop;
  const summary = await replay.close();
  if (flags.json) {
    print(
      JSON.stringify({
        event: 'summary',
        signal,
        misses: summary.misses.length,
        unused: summary.unusedExchanges,
        unusedLines: summary.unusedLines.length,
        ok: summary.ok,
        ...(summary.faults.length > 0 ? { faults: summary.faults } : {}),
      }),
    );
  } else {
    print(`stopped (${signal}): ${count(summary.misses.length, 'miss', 'misses')}, ${count(summary.unusedExchanges.length, 'unused connection')}, ${count(summary.unusedLines.length, 'unused line')}`);
    if (!summary.ok) print(`--strict: ${count(summary.misses.length, 'miss', 'misses')}, ${count(summary.unusedExchanges.length, 'unused connection')} and ${count(summary.unusedLines.length, 'unused line')}`);
    for (const tally of summary.faults) print(tally.injected === 0 ? unmatchedFaultLine(tally.spec) : `fault ${tally.spec} injected ${count(tally.injected, 'time')}`);
  }
  await emitReports(() => replayReport(flags.reportAs ?? 'replay', recording, (o) => o.ndjsonReplayOutcome(summary, served, Boolean(flags.strict))), flags.reports ?? []);
  return summary.ok ? EXIT_OK : EXIT_FINDINGS;
}
