import { Command, Option } from 'commander';
import type { CommandResult } from './command-result.js';
import { EXIT_FINDINGS, EXIT_OK } from './exit-codes.js';
import { collect } from './option-parsers.js';
import { styleFor } from '../core/style.js';
import { UsageError } from '../core/errors.js';
import { LINE_PREFIX } from '../core/program-name.js';
import { count } from '../core/plural.js';
import { outputFormat, diffProgress, type DiffOutputFlags } from './diff-command.js';
import { progressLine } from './progress-line.js';
import { emitReports, reportOnStdout, reportOption, reportTargetsOf } from './report-flag.js';
import { tlsFlagOptions, tlsOptionsOf, warnIfInsecure, type TlsFlags } from './tls-flags.js';

interface RedriveCommandOptions extends DiffOutputFlags, Pick<TlsFlags, 'ca' | 'insecure'> {
  target?: string;
  stdio?: boolean;
  out: string;
  overwrite?: boolean;
  serial?: boolean;
  timing?: string;
  header: string[];
  redactedValues?: string;
  failOn: 'difference' | 'regression';
  ignore: string[];
  semantic: boolean;
  config?: string;
  schemas: string[];
  report: string[];
}

export function redriveCommand(result: CommandResult): Command {
  const [ca, insecure] = tlsFlagOptions('an https:// --target');
  return new Command('redrive')
    .description("send a recording's client side to a live agent, record its answers and diff them with the recording; exit 0 equal, 1 differ, 2 error")
    .argument('<recording>', 'the recording whose requests are sent again (.db or .ndjson)')
    .argument('[command...]', 'with --stdio: the agent command and its arguments, after --')
    .option('--target <url>', 'the agent: http[s]://host[:port][/base], or the daemon\'s NDJSON socket unix:/path.sock (required unless --stdio)')
    .option('--stdio', "start the agent command given after -- and play the recording's stdio exchange to it")
    .requiredOption('--out <file>', 'the new recording')
    .option('--overwrite', 'replace the --out file if it exists')
    .option('--serial', 'send one exchange at a time (default: exchanges that overlapped in the recording overlap again)')
    .option('--timing <timing>', "pace each connection's client messages: none (as fast as the agent answers, the default), recorded (at their recorded offsets from the connection's start) or a speed such as 4x")
    .option('--header <header>', "'Name: value' sent in place of the recorded (or redacted) header of that name, and never stored (repeatable)", collect, [])
    .option('--redacted-values <file>', 'FIELD=value lines (an env file): values for the JSON fields the recording redacted in what the client sent (a key name or a JSON pointer); sent in their place, and never stored')
    .addOption(new Option('--fail-on <what>', 'exit 1 for any difference, or only for regressions (messages valid in the recording, invalid now)').choices(['difference', 'regression']).default('difference'))
    .addOption(new Option('--format <format>', 'output format of the diff').choices(['text', 'json', 'markdown']).default('text'))
    .option('--json', 'print the diff as JSON (the same as --format json)')
    .option('--ignore <field>', 'another field to ignore: a JSON pointer (* for any key) or a key name (repeatable)', collect, [])
    .option('--no-semantic', 'compare wire chunks instead of what the client materialises (AG-UI runs, Pi sessions)')
    .option('--config <file>', 'JSON config: {"ignore": [...], "semantic": bool}')
    .option('--schemas <dir>', 'extra schema directory (repeatable; also AGENT_PROXY_SCHEMAS)', collect, [])
    .addOption(ca)
    .addOption(insecure)
    .addOption(reportOption('the diff'))
    .action(async (recording: string, agentCommand: string[], options: RedriveCommandOptions, command: Command) => {
      const format = outputFormat(options, command);
      const agent = agentOf(options, agentCommand);
      const reports = reportTargetsOf(options.report);
      const { parseSuppliedHeader } = await import('../redrive/supplied-header.js');
      const headers = options.header.map(parseSuppliedHeader);
      const { parseTiming } = await import('../replay/timing.js');
      const { RedactedValues } = await import('../redrive/redacted-values.js');
      const redactedValues = options.redactedValues === undefined ? undefined : RedactedValues.read(options.redactedValues);
      const timing = options.timing === undefined ? undefined : parseTiming(options.timing);
      const { upstreamTls } = tlsOptionsOf({ ca: options.ca, insecure: options.insecure });
      const [{ loadDiffConfig }, { runRedrive }, { refuseUnrelated }, { renderMarkdown }, { renderText }] = await Promise.all([
        import('../diff/diff-options.js'),
        import('../redrive/run-redrive.js'),
        import('../diff/nothing-in-common.js'),
        import('../diff/render-markdown.js'),
        import('../diff/render-text.js'),
      ]);
      const config = options.config ? loadDiffConfig(options.config) : {};
      // --no-semantic on the command line wins over the config; otherwise the config, then semantic.
      const semantic = command.getOptionValueSource('semantic') === 'cli' ? options.semantic : (config.semantic ?? true);
      if (options.target !== undefined) warnIfInsecure(options, options.target);
      const line = progressLine(process.stderr);
      const missing = new Set<string>();
      const failures: string[] = [];
      let redriven;
      try {
        redriven = await runRedrive({
          recording,
          target: options.target,
          agent,
          out: options.out,
          overwrite: options.overwrite,
          serial: options.serial,
          ...(timing === undefined ? {} : { pacing: { timing } }),
          headers,
          ...(redactedValues === undefined ? {} : { redactedValues }),
          upstreamTls,
          diff: { ignore: [...(config.ignore ?? []), ...options.ignore], semantic, schemas: options.schemas },
          progress: (event) => {
            if (event.kind === 'unmet') failures.push(`exchange ${event.exchange.id} ${event.reason}`);
            if (event.kind !== 'sent') return;
            for (const name of event.missing) missing.add(name.toLowerCase());
            if (event.error !== undefined) failures.push(`exchange ${event.exchange.id} failed: ${event.error}`);
            line.update(`redrive: sent exchange ${event.exchange.id}`);
          },
          diffProgress: diffProgress(line),
        });
      } finally {
        line.done();
      }
      const { report, skipped } = redriven;
      for (const name of missing) process.stderr.write(`${LINE_PREFIX}header ${name} was redacted in the recording and sent without it; give it with --header '${name}: …'\n`);
      for (const s of skipped) process.stderr.write(`${LINE_PREFIX}exchange ${s.exchangeId} not sent: ${s.reason}\n`);
      for (const failure of failures) process.stderr.write(`${LINE_PREFIX}${failure}\n`);
      process.stderr.write(`${LINE_PREFIX}redrive: sent ${count(redriven.sent, 'exchange')} to ${options.target ?? agentCommand.join(' ')} -> ${redriven.out}\n`);
      refuseUnrelated(report, recording, redriven.out);
      if (!reportOnStdout(reports)) {
        if (format === 'json') process.stdout.write(JSON.stringify(report, null, 2) + '\n');
        else if (format === 'markdown') process.stdout.write(renderMarkdown(report));
        else process.stdout.write(renderText(report, styleFor(process.stdout)));
      }
      await emitReports(async () => {
        const [{ diffCiReport }, { recordingExchanges }] = await Promise.all([import('../report/from-diff.js'), import('../report/recording-exchanges.js')]);
        return diffCiReport({ report, exchanges: recordingExchanges(redriven.out), failOn: options.failOn, command: 'redrive' });
      }, reports);
      const failed = options.failOn === 'regression' ? report.summary.regressions > 0 : !report.equal;
      result.code = failed ? EXIT_FINDINGS : EXIT_OK;
    });
}

/** The stdio agent to start (`--stdio -- <command>`), or undefined for `--target`; refuses the two together, or neither. */
function agentOf(options: RedriveCommandOptions, command: string[]): { command: string; args: string[] } | undefined {
  if (options.stdio) {
    if (options.target !== undefined) throw new UsageError('--stdio and --target exclude each other');
    if (command.length === 0) throw new UsageError('--stdio needs the agent command after --, e.g. agent-proxy redrive run.db --stdio --out new.db -- pi --mode rpc');
    return { command: command[0], args: command.slice(1) };
  }
  if (command.length > 0) throw new UsageError(`unexpected argument '${command[0]}' (an agent command needs --stdio)`);
  if (options.target === undefined) throw new UsageError('redrive needs --target <url>, or --stdio and the agent command after --');
  return undefined;
}
