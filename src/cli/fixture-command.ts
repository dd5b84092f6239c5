import { Command } from 'commander';
// Only light modules statically (the options and help); the servers load in the action.
import type { CommandResult } from './command-result.js';
import { EXIT_FINDINGS, EXIT_OK, oneLine } from './exit-codes.js';
import { collect, shutdownGraceOfFlag, shutdownGraceOption } from './option-parsers.js';
import { corsOption } from './cors-flag.js';
import { UsageError } from '../core/errors.js';
import { styleFor } from '../core/style.js';
import { warnIfReachable } from './exposure-warning.js';
import { LINE_PREFIX } from '../core/program-name.js';
import { count } from '../core/plural.js';
import { maxRequestBytesOf } from '../replay/http/request-limits.js';
import { parseFaults } from '../replay/fault/fault-spec.js';
import { chooseFixtureMode, modeText } from '../fixture/fixture-mode.js';
import type { FixtureSummary, RunningFixture } from '../fixture/start-fixture.js';
import { totalsText } from './totals-text.js';
import { createLiveView } from './live-view.js';
import { defaultCaDir } from '../net/ca/ca-folder.js';
import { tlsFlagOptions, tlsOptionsOf, warnIfInsecure, type TlsFlags } from './tls-flags.js';
import { recordingRuleOptions, recordingRulesOf, type RecordingRuleFlags } from './recording-rule-flags.js';
import { emitReports, replayReport, reportOption, ServedExchanges, strictReportTargets, unreportedRecording } from './report-flag.js';

interface FixtureCommandOptions extends TlsFlags, RecordingRuleFlags {
  mode?: string;
  target?: string;
  listen?: string;
  timing: string;
  strict?: boolean;
  reuse?: boolean;
  ignore: string[];
  maxRequestBody?: string;
  fault: string[];
  cors?: 'on' | 'off';
  json?: boolean;
  quiet?: boolean;
  overwrite?: boolean;
  stdio?: boolean;
  ndjson?: boolean;
  report: string[];
  forward?: boolean;
  caDir?: string;
  proxyAuth?: string;
  shutdownGrace?: string;
}

export function fixtureCommand(result: CommandResult): Command {
  const command = new Command('fixture')
    .description("a test suite's fixture server: replay the recording, record it once or again, append what misses, or pass through, as --mode (or AGENT_PROXY_MODE) says")
    .argument('<recording>', 'the recording to replay or record into (.db, or its NDJSON form named .ndjson)')
    .argument('[command...]', 'with --stdio: the agent command and its arguments, after --; with --forward: a command to run through the fixture, which ends with it')
    .option('--mode <mode>', 'replay, once (default: record if the recording does not exist, else replay), new-episodes, record or passthrough; AGENT_PROXY_MODE overrides it')
    .option('--target <url>', 'the real upstream, for the modes that reach it: http://host:port[/base] or unix:/path.sock')
    .option('--stdio', 'stand in for the agent command given after -- on our own stdin/stdout: replay its recorded conversation, or run and record it (Pi RPC or ACP)')
    .option('--ndjson', "the daemon's NDJSON unix socket: replay its recorded connections on --listen unix:…, or relay --target unix:… and record them")
    .option('--listen <addr>', '[host:]port or unix:/path.sock (default 127.0.0.1:8788; 0 picks a free port)')
    .option('--timing <mode>', 'when replaying: recorded (default), none, or a speed such as 2x or 0.5x', 'recorded')
    .option('--strict', 'when only replaying: exit 1 at the end if any request missed or any recorded exchange was never used')
    .option('--reuse', "when replaying: serve a request's last recorded answer again once its answers are used up")
    .option('--ignore <pointer>', 'when replaying: another request field to ignore when matching: a JSON pointer or a key name (repeatable)', collect, [])
    .option('--max-request-body <size>', 'when replaying: longest request body, WebSocket frame or line held to match it: bytes, or with a unit (64KiB, 10MB) (default 10MiB)')
    .option('--fault <spec>', 'when replaying: inject a fault, e.g. status=503,nth=3 or cut=reset,after=5 (repeatable; see docs/cli.md "Faults")', collect, [])
    .option('--overwrite', 'let mode record or new-episodes write over a file that is not a recording (refused without it)')
    .option('--forward', 'be an HTTP forward proxy (HTTP_PROXY, HTTPS_PROXY): record every origin the client calls (no --target), replay each request from its host\'s exchanges, or pass it on to its origin (new-episodes, passthrough)')
    .option('--ca-dir <dir>', "with --forward: the local CA's folder, made on first use (default $XDG_CONFIG_HOME/agent-proxy/ca)")
    .option('--proxy-auth <user:pass>', 'with --forward: clients must send these Basic credentials in Proxy-Authorization (others get 407)')
    .addOption(corsOption('when replaying, for pages on another origin: answer preflights and allow the requesting origin on every answer (default on)'))
    .addOption(reportOption('what --strict fails the replay for (a case per recorded exchange), when only replaying', false))
    .addOption(shutdownGraceOption())
    .option('--json', 'print NDJSON events on stdout')
    .option('--quiet', 'print only the first line, misses and the summary');
  for (const option of tlsFlagOptions('an https:// --target')) command.addOption(option);
  for (const option of recordingRuleOptions('what the fixture records (the recording, or the new episodes)', true)) command.addOption(option);
  return command
    .action(async (recording: string, command: string[], options: FixtureCommandOptions) => {
      const chosen = chooseFixtureMode(options.mode);
      if (options.stdio && options.ndjson) throw new UsageError('--stdio and --ndjson exclude each other');
      if (!options.stdio && !options.forward && command.length > 0) throw new UsageError(`unexpected argument '${command[0]}' (an agent command needs --stdio)`);
      if (options.forward && command.length > 0 && options.json) throw new UsageError('--json does not go with a command: its stdout is its own');
      const lines = options.stdio ? '--stdio' : options.ndjson ? '--ndjson' : undefined;
      if (options.forward && lines) throw new UsageError(`--forward and ${lines} exclude each other`);
      if (options.caDir !== undefined && !options.forward) throw new UsageError('--ca-dir goes with --forward');
      if (options.proxyAuth !== undefined && !options.forward) throw new UsageError('--proxy-auth goes with --forward');
      const tls = tlsOptionsOf(options, lines);
      const maxRequestBytes = maxRequestBytesOf(options.maxRequestBody);
      const shutdownGraceMs = shutdownGraceOfFlag(options.shutdownGrace);
      if (shutdownGraceMs !== undefined && options.stdio) throw new UsageError('--shutdown-grace goes with a fixture that listens, not --stdio');
      // Parsed before anything starts, in every mode: a wrong spec is one usage line and nothing listens.
      const faults = parseFaults(options.fault);
      const rules = recordingRulesOf(options, lines);
      const reports = strictReportTargets(options.report, options.strict, 'fixture');
      if (lines) {
        refuseForLines(options, lines);
        const { runStdioFixture, runNdjsonFixture } = await import('./line-fixture-command.js');
        const flags = { ...options, reports, reportAs: 'fixture' as const, mode: chosen.mode, protocol: options.protocol ?? 'auto', maxRequestBytes, shutdownGraceMs, maxBody: rules.maxBodyBytes, redactFields: rules.redactFields, keepSecretsMatching: rules.keepSecretsMatching };
        result.code = options.stdio ? await runStdioFixture(recording, command, flags) : await runNdjsonFixture(recording, flags);
        return;
      }
      const [{ startFixture }, { createReplayView, formatSummary }] = await Promise.all([import('../fixture/start-fixture.js'), import('./replay-view.js')]);
      const withCommand = command.length > 0;
      // The command's stdout is its own: with one, every line of ours goes to stderr, and none per exchange.
      const style = styleFor(withCommand ? process.stderr : process.stdout);
      const say = withCommand ? (line: string) => process.stderr.write(`${LINE_PREFIX}${line}\n`) : (line: string) => process.stdout.write(`${line}\n`);
      const json = Boolean(options.json);
      const quiet = Boolean(options.quiet) || withCommand;
      let served = 0;
      const servedIds = new ServedExchanges();
      const replayView = createReplayView({ json, quiet, style, print: say });
      const liveView = createLiveView({ json, quiet, style, startedAt: new Date() });
      const caDir = options.caDir ?? defaultCaDir();
      const fixture = await startFixture({
        recording,
        mode: chosen.mode,
        target: options.target,
        listen: options.listen,
        timing: options.timing,
        strict: options.strict,
        reuse: options.reuse,
        ignore: options.ignore,
        maxRequestBytes,
        shutdownGraceMs,
        faults,
        overwrite: options.overwrite,
        cors: options.cors !== 'off',
        log: { served: (e) => (served++, servedIds.add(e), replayView.served(e)), miss: replayView.miss },
        listener: quiet ? undefined : liveView.listener,
        ...tls,
        ...rules,
        ...(options.forward ? { forward: true, caDir, proxyAuth: options.proxyAuth } : {}),
      });
      // Listen for the stop signal before saying "listening": a script may send it the moment it reads that line.
      const stopped = new Promise<NodeJS.Signals>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
      warnIfReachable(fixture.action === 'replay' ? 'replay' : 'record', options.listen, fixture.url);
      // Only a mode that reaches the upstream skips its certificate check.
      if (fixture.action !== 'replay') warnIfInsecure(options, options.target ?? (options.forward ? 'the origins' : undefined));
      for (const warning of fixture.warnings) process.stderr.write(`${LINE_PREFIX}warning: ${oneLine(warning)}\n`);
      const from = chosen.from === 'environment' ? { modeFrom: 'environment' } : {};
      if (json) {
        process.stdout.write(JSON.stringify({ event: 'listening', url: fixture.url, wsUrl: fixture.wsUrl, mode: fixture.mode, ...from, action: fixture.action, recording: fixture.recording, ...(options.target ? { target: options.target } : {}) }) + '\n');
      } else if (!withCommand || !options.quiet) {
        say(`${withCommand ? 'forward fixture ' : ''}listening on ${fixture.url}`);
        if (!quiet) say(style.dim(`${modeText(chosen)}: ${doing(fixture, options)}; Ctrl-C to stop`));
      }
      const commandCode = withCommand ? await (await import('./forward-command.js')).runThroughForwardProxy(command, fixture.url, caDir, options.proxyAuth) : undefined;
      const signal = commandCode !== undefined ? `${command[0]} exited ${commandCode}` : await stopped;
      const summary = await fixture.close();
      liveView.clearStatus();
      if (json) {
        process.stdout.write(
          JSON.stringify({
            event: 'summary',
            signal,
            mode: summary.mode,
            action: summary.action,
            served,
            misses: summary.misses.length,
            unused: summary.unused.map((e) => e.id),
            unusedCount: summary.unused.length,
            forwarded: summary.forwarded,
            written: summary.written,
            strict: options.strict === true,
            ok: summary.ok,
            ...(summary.replay && summary.replay.faults.length > 0 ? { faults: summary.replay.faults } : {}),
          }) + '\n',
        );
      } else {
        const text = summary.replay ? formatSummary(signal, summary.replay, served, style) : recordedText(signal, summary, options);
        for (const line of text.split('\n')) say(line);
      }
      if (summary.replay) await emitReports(() => replayReport('fixture', recording, (o) => o.httpReplayOutcome(summary, servedIds.ids)), reports);
      else if (reports.length > 0 && (summary.action === 'record' || summary.action === 'forward')) unreportedRecording(summary.action);
      // With a command, its code; a --strict failure only turns its success into a failure.
      result.code = commandCode !== undefined && commandCode !== EXIT_OK ? commandCode : summary.ok ? EXIT_OK : EXIT_FINDINGS;
    });
}

/** The flags that mean nothing for a stdio or NDJSON fixture: refused, not ignored. */
function refuseForLines(options: FixtureCommandOptions, lines: '--stdio' | '--ndjson'): void {
  if (options.reuse) throw new UsageError(`--reuse goes with the HTTP fixture, not ${lines}`);
  if (options.cors !== undefined) throw new UsageError(`--cors goes with the HTTP fixture, not ${lines}`);
  if (lines === '--ndjson') return;
  if (options.target !== undefined) throw new UsageError('--target goes with the HTTP and NDJSON fixtures; with --stdio the agent is the command after --');
  if (options.listen !== undefined) throw new UsageError('--listen goes with the HTTP and NDJSON fixtures; with --stdio the fixture is on its own stdin and stdout');
  if (options.json) throw new UsageError("--json goes with the HTTP and NDJSON fixtures; with --stdio stdout belongs to the agent's protocol");
}

/** The second line: what this run does with the recording and the target. */
function doing(fixture: RunningFixture, options: FixtureCommandOptions): string {
  const target = upstreamOf(options);
  switch (fixture.action) {
    case 'replay':
      return `replaying ${fixture.recording} (timing ${options.timing}); misses: ${fixture.missAnswers}; nothing reaches the network`;
    case 'append':
      return `replaying ${fixture.recording} (timing ${options.timing}); misses are forwarded to ${target} and appended to the recording (served from the next replay on)`;
    case 'record':
      return fixture.mode === 'record' ? `recording ${fixture.recording} again from ${target} (the old recording is replaced)` : `${fixture.recording} does not exist: recording it from ${target}`;
    case 'forward':
      return `forwarding to ${target}; nothing is recorded`;
  }
}

/** The last line when the fixture recorded or forwarded everything. */
function recordedText(signal: string, summary: FixtureSummary, options: FixtureCommandOptions): string {
  const ending = signal.startsWith('SIG') ? `stopped (${signal})` : signal;
  if (summary.action === 'forward') return `${ending}: ${count(summary.forwarded, 'exchange')} forwarded to ${upstreamOf(options)}, nothing recorded`;
  return `${ending}: ${totalsText(summary.written)} -> ${summary.recording}`;
}

/** Where the fixture's requests go: its target, or as a forward proxy the origin each names. */
function upstreamOf(options: FixtureCommandOptions): string {
  return options.target ?? (options.forward ? 'the origin each request names' : 'the target');
}
