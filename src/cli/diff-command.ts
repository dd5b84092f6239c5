import { Command, Option } from 'commander';
import { UsageError } from '../core/errors.js';
import type { CommandResult } from './command-result.js';
import { EXIT_FINDINGS, EXIT_OK } from './exit-codes.js';
import { collect } from './option-parsers.js';
import { styleFor } from '../core/style.js';
import type { DiffStep } from '../diff/diff-options.js';
import type { DiffReport } from '../diff/diff-report.js';
import { groupedCount, LONG_READ_MESSAGES, progressLine, type ProgressLine } from './progress-line.js';
import { emitReports, reportOnStdout, reportOption, reportTargetsOf } from './report-flag.js';

interface DiffCommandOptions {
  format: 'text' | 'json' | 'markdown';
  json?: boolean;
  ignore: string[];
  semantic?: boolean;
  config?: string;
  schemas: string[];
  report: string[];
}

export function diffCommand(result: CommandResult): Command {
  return new Command('diff')
    .description('compare two recordings after normalization; exit 0 equal, 1 differ, 2 error')
    .argument('<a>', 'the baseline recording (.db or .ndjson)')
    .argument('<b>', 'the recording to compare with it (.db or .ndjson)')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'markdown']).default('text'))
    .option('--json', 'print the JSON document (the same as --format json)')
    .option('--ignore <field>', 'another field to ignore: a JSON pointer (* for any key) or a key name (repeatable)', collect, [])
    .option('--semantic', 'compare what the client materialises (AG-UI runs, Pi sessions) instead of wire chunks')
    .option('--config <file>', 'JSON config: {"ignore": [...], "semantic": bool}')
    .option('--schemas <dir>', 'extra schema directory (repeatable; also AGENT_PROXY_SCHEMAS): verdicts are compared as judged with the schemas loaded now', collect, [])
    .addOption(reportOption('the result'))
    .action(async (a: string, b: string, options: DiffCommandOptions, command: Command) => {
      const format = outputFormat(options, command);
      const reports = reportTargetsOf(options.report);
      // The diff engine loads only when the command runs (fast CLI start).
      const [{ loadDiffConfig }, { diffRecordingFilesReporting }, { refuseUnrelated }, { renderMarkdown }, { renderText }] = await Promise.all([
        import('../diff/diff-options.js'),
        import('../diff/diff-recordings.js'),
        import('../diff/nothing-in-common.js'),
        import('../diff/render-markdown.js'),
        import('../diff/render-text.js'),
      ]);
      const config = options.config ? loadDiffConfig(options.config) : {};
      const line = progressLine(process.stderr);
      let report: DiffReport;
      try {
        const diffOptions = { ignore: [...(config.ignore ?? []), ...options.ignore], semantic: Boolean(options.semantic ?? config.semantic), schemas: options.schemas };
        // Off a terminal the line shows nothing: no progress asked for, so no totals counted for it.
        report = diffRecordingFilesReporting(a, b, diffOptions, process.stderr.isTTY ? diffProgress(line) : undefined);
      } finally {
        line.done();
      }
      refuseUnrelated(report, a, b);
      // A report on stdout (`--report junit=-`) takes the place of the diff's own output there.
      if (!reportOnStdout(reports)) {
        if (format === 'json') process.stdout.write(JSON.stringify(report, null, 2) + '\n');
        else if (format === 'markdown') process.stdout.write(renderMarkdown(report));
        else process.stdout.write(renderText(report, styleFor(process.stdout)));
      }
      await emitReports(async () => {
        const [{ diffCiReport }, { recordingExchanges }] = await Promise.all([import('../report/from-diff.js'), import('../report/recording-exchanges.js')]);
        return diffCiReport({ report, exchanges: recordingExchanges(b) });
      }, reports);
      result.code = report.equal ? EXIT_OK : EXIT_FINDINGS;
    });
}

/** The output flags `diff` and `redrive` share. */
export type DiffOutputFlags = Pick<DiffCommandOptions, 'format' | 'json'>;

/** `--json` is `--format json`, as every reading command takes it; with another `--format` given too, it is a usage error. */
export function outputFormat(options: DiffOutputFlags, command: Command): DiffOutputFlags['format'] {
  if (!options.json) return options.format;
  if (command.getOptionValueSource('format') === 'cli' && options.format !== 'json') throw new UsageError(`--json and --format ${options.format} ask for two outputs; give one`);
  return 'json';
}

/** What a diff tells its progress line: only a side of more than `longRead` messages is worth a line. */
export function diffProgress(line: ProgressLine, longRead = LONG_READ_MESSAGES): (step: DiffStep) => void {
  return (step) => {
    if (step.phase === 'comparing') {
      if (step.messages > longRead) line.update(`diff: comparing the exchanges that differ… ${groupedCount(step.exchanges)} of ${groupedCount(step.of)}`);
      return;
    }
    if (step.of <= longRead) return;
    const doing = step.phase === 'judging' ? 'judging again' : 'reading';
    line.update(`diff: ${doing} ${step.file}… ${groupedCount(step.messages)} of ${groupedCount(step.of)} messages`);
  };
}
