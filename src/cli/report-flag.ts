import { Option } from 'commander';
import { collect } from './option-parsers.js';
import { parseReportTargets, type ReportTarget } from '../report/report-targets.js';
import type { CiReport } from '../report/ci-report.js';
import type { ReplayOutcome } from '../report/from-replay.js';
import type { ServedExchange } from '../replay/replay-context.js';
import { UsageError } from '../core/errors.js';
import { LINE_PREFIX } from '../core/program-name.js';

/** `--report <format>=<file>`, repeatable, as `diff`, `findings`, `replay` and `fixture` take it (docs/ci-reports.md). */
export function reportOption(what: string, stdout = true): Option {
  return new Option('--report <format>=<file>', `write ${what} for CI: junit, github, markdown, json or html, to a file (${stdout ? '- for stdout; ' : ''}github alone: GitHub Actions' own places) (repeatable; see docs/ci-reports.md)`)
    .argParser(collect)
    .default([]);
}

/** The `--report` values checked (a usage error, exit 2, before anything runs). */
export function reportTargetsOf(values: readonly string[], stdoutTaken?: string): ReportTarget[] {
  return parseReportTargets(values, stdoutTaken);
}

/** Whether a report takes stdout (`<format>=-`), so that the command's own output stays off it. */
export function reportOnStdout(targets: readonly ReportTarget[]): boolean {
  return targets.some((t) => t.file === '-');
}

/**
 * Writes the reports; `-` and GitHub's workflow commands to stdout, or to stderr where stdout is a
 * protocol's (`--stdio`). The report modules load only when a report is asked for.
 */
export async function emitReports(make: () => CiReport | Promise<CiReport>, targets: readonly ReportTarget[], options: { commandsOnStderr?: boolean } = {}): Promise<void> {
  if (targets.length === 0) return;
  const { writeReports } = await import('../report/write-reports.js');
  const stream = options.commandsOnStderr ? process.stderr : process.stdout;
  writeReports(await make(), targets, { env: process.env, out: (text) => void stream.write(text), notice: (line) => void process.stderr.write(line + '\n') });
}

/**
 * `replay`'s and `fixture`'s `--report`: a report of what `--strict` fails them for, so it needs
 * `--strict`; stdout is their log, so a report goes to a file.
 */
export function strictReportTargets(values: readonly string[], strict: boolean | undefined, command: 'replay' | 'fixture'): ReportTarget[] {
  const targets = parseReportTargets(values, `the ${command}'s log`);
  if (targets.length > 0 && !strict) throw new UsageError(`--report goes with --strict: the report is of what a strict ${command} fails for; add --strict`);
  return targets;
}

/** A replay's report: every exchange of its recording, and what the replay made of them (`outcome`, from the adapters of report/replay-outcomes.ts). */
export async function replayReport(command: 'replay' | 'fixture', recording: string, outcome: (adapters: typeof import('../report/replay-outcomes.js')) => ReplayOutcome): Promise<CiReport> {
  const [adapters, { replayCiReport }, { recordingExchanges }] = await Promise.all([import('../report/replay-outcomes.js'), import('../report/from-replay.js'), import('../report/recording-exchanges.js')]);
  return replayCiReport({ command, file: recording, exchanges: recordingExchanges(recording), outcome: outcome(adapters) });
}

/** A fixture that recorded or forwarded (not only replayed) has nothing `--strict` fails it for: no report, and a line that says so. */
export function unreportedRecording(action: 'record' | 'forward'): void {
  process.stderr.write(`${LINE_PREFIX}--report: the fixture ${action === 'record' ? 'recorded' : 'forwarded'} instead of replaying, so --strict did not apply and no report is written\n`);
}

/** The recorded exchanges a replay served, as its `served` events tell them, for its report. */
export class ServedExchanges {
  readonly ids: number[] = [];

  /** One `served` event; a `status` fault answered in the recording's place, which serves nothing. */
  add(event: Pick<ServedExchange, 'exchangeId' | 'faultStatus'>): void {
    if (event.faultStatus === undefined && event.exchangeId !== null) this.ids.push(event.exchangeId);
  }
}
