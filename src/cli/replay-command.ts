import { Command, Option } from 'commander';
// Only light modules statically (the options and help); the replay servers load in the action.
import type { CommandResult } from './command-result.js';
import { EXIT_FINDINGS, EXIT_OK, oneLine } from './exit-codes.js';
import { collect, shutdownGraceOfFlag, shutdownGraceOption } from './option-parsers.js';
import { corsOption } from './cors-flag.js';
import { styleFor } from '../core/style.js';
import { warnIfReachable } from './exposure-warning.js';
import { UsageError } from '../core/errors.js';
import { defaultCaDir } from '../net/ca/ca-folder.js';
import { LINE_PREFIX } from '../core/program-name.js';
import { maxRequestBytesOf } from '../replay/http/request-limits.js';
import { checkMissOptions } from '../replay/miss-options.js';
import { parseFaults } from '../replay/fault/fault-spec.js';
import { tlsFlagOptions, tlsOptionsOf, warnIfInsecure, type TlsFlags } from './tls-flags.js';
import { recordingRuleOptions, recordingRulesOf, type RecordingRuleFlags } from './recording-rule-flags.js';
import { emitReports, replayReport, reportOption, ServedExchanges, strictReportTargets } from './report-flag.js';

interface ReplayCommandOptions extends TlsFlags, Omit<RecordingRuleFlags, 'protocol'> {
  listen?: string;
  timing?: string;
  onMiss: 'error' | 'passthrough';
  target?: string;
  missesOut?: string;
  overwrite?: boolean;
  reuse?: boolean;
  strict?: boolean;
  ignore: string[];
  json?: boolean;
  quiet?: boolean;
  stdio?: boolean;
  ndjson?: boolean;
  maxRequestBody?: string;
  fault: string[];
  cors?: 'on' | 'off';
  report: string[];
  forward?: boolean;
  caDir?: string;
  proxyAuth?: string;
  shutdownGrace?: string;
}

export function replayCommand(result: CommandResult): Command {
  const [ca, insecure, tlsCert, tlsKey] = tlsFlagOptions('an https:// --target, or with --forward the https:// origins (--on-miss passthrough)');
  const command = new Command('replay')
    .description('serve a recording as a deterministic mock server (HTTP, SSE, protobuf streams, WebSocket)')
    .argument('<recording>', 'the recording file (.db or .ndjson)')
    .argument('[command...]', 'with --forward: a command to run through the replay (as record --forward runs one), after --; the replay ends with it')
    .option('--listen <addr>', '[host:]port or unix:/path.sock (default 127.0.0.1:8788; 0 picks a free port)')
    .option('--timing <mode>', 'recorded (default), none, or a speed such as 2x or 0.5x', 'recorded')
    .addOption(new Option('--on-miss <policy>', 'what a request that matches nothing gets').choices(['error', 'passthrough']).default('error'))
    .option('--target <url>', 'the real upstream for --on-miss passthrough (with --forward none: each miss goes to its own origin); forwarded misses are appended to the recording')
    .option('--misses-out <file>', 'record forwarded misses into this new file instead of appending them to the recording')
    .option('--overwrite', 'replace the --misses-out file if it exists')
    .option('--reuse', "serve a request's last recorded answer again once its answers are used up")
    .option('--strict', 'exit 1 at the end if any request missed or any recorded exchange was never used')
    .option('--ignore <pointer>', 'another request field to ignore when matching: a JSON pointer or a key name (repeatable)', collect, [])
    .option('--max-request-body <size>', 'longest request body, WebSocket frame or line held to match it, in bytes or with a unit (64KiB, 10MB); a longer one is a miss (413, close 1009) (default 10MiB)')
    .option('--fault <spec>', 'inject a fault, e.g. status=503,nth=3 or cut=reset,after=5 or close=1011,after=2 (repeatable; see docs/cli.md "Faults")', collect, [])
    .addOption(corsOption('for pages on another origin: answer preflights and allow the requesting origin on every answer (default on)'))
    .addOption(reportOption('what --strict fails the replay for (a case per recorded exchange)', false))
    .addOption(shutdownGraceOption())
    .option('--json', 'print NDJSON events on stdout')
    .option('--quiet', 'print only the first line, misses and the summary')
    .option('--stdio', 'behave like the recorded stdio agent on our own stdin/stdout (until stdin ends)')
    .option('--ndjson', 'serve the recorded NDJSON socket connections on --listen unix:/path.sock')
    .option('--forward', 'listen as an HTTP forward proxy (HTTP_PROXY, HTTPS_PROXY) and serve a record --forward recording, each request from its host\'s exchanges')
    .option('--ca-dir <dir>', "with --forward: the local CA's folder, whose leaves answer TLS inside a CONNECT (default $XDG_CONFIG_HOME/agent-proxy/ca)")
    .option('--proxy-auth <user:pass>', 'with --forward: clients must send these Basic credentials in Proxy-Authorization (others get 407)')
    .addOption(ca)
    .addOption(insecure)
    .addOption(tlsCert)
    .addOption(tlsKey);
  for (const option of recordingRuleOptions('the forwarded misses (--on-miss passthrough)', false)) command.addOption(option);
  return command
    .action(async (recording: string, command: string[], options: ReplayCommandOptions) => {
      if (command.length > 0 && !options.forward) throw new UsageError(`unexpected argument '${command[0]}' (a command to run through the replay needs --forward)`);
      if (command.length > 0 && options.json) throw new UsageError('--json does not go with a command: its stdout is its own');
      if (options.stdio && options.ndjson) throw new UsageError('--stdio and --ndjson exclude each other');
      if ((options.stdio || options.ndjson) && options.onMiss !== 'error') throw new UsageError('--on-miss passthrough is not available with --stdio or --ndjson');
      if ((options.stdio || options.ndjson) && options.cors !== undefined) throw new UsageError(`--cors goes with the HTTP replay, not ${options.stdio ? '--stdio' : '--ndjson'}`);
      if (options.forward && (options.stdio || options.ndjson)) throw new UsageError(`--forward and ${options.stdio ? '--stdio' : '--ndjson'} exclude each other`);
      if (options.caDir !== undefined && !options.forward) throw new UsageError('--ca-dir goes with --forward');
      if (options.proxyAuth !== undefined && !options.forward) throw new UsageError('--proxy-auth goes with --forward');
      const missRecording = recordingRulesOf(options);
      const ruleFlag = missRuleFlag(options);
      if (ruleFlag && options.onMiss !== 'passthrough') throw new UsageError(`${ruleFlag} says how --on-miss passthrough records the misses it forwards; add --on-miss passthrough --target <url>, or drop it`);
      checkMissOptions(options.onMiss, { target: options.target, missesOut: options.missesOut, overwriteMisses: options.overwrite, forward: options.forward });
      const tls = tlsOptionsOf(options, options.stdio ? '--stdio' : options.ndjson ? '--ndjson' : undefined);
      if (tls.upstreamTls && options.forward && options.onMiss !== 'passthrough') throw new UsageError(`${options.ca.length > 0 ? '--ca' : '--insecure'} is for the https:// origins that --on-miss passthrough forwards to; add --on-miss passthrough, or drop it`);
      if (tls.upstreamTls && options.target === undefined && !options.forward) throw new UsageError(`${options.ca.length > 0 ? '--ca' : '--insecure'} is for the https:// --target that --on-miss passthrough forwards to; add --on-miss passthrough --target <url>, or drop it`);
      const maxRequestBytes = maxRequestBytesOf(options.maxRequestBody);
      const shutdownGraceMs = shutdownGraceOfFlag(options.shutdownGrace);
      if (shutdownGraceMs !== undefined && options.stdio) throw new UsageError('--shutdown-grace goes with a replay that listens, not --stdio');
      // Parsed before anything starts, so a wrong spec is one usage line and nothing listens.
      const faults = parseFaults(options.fault);
      const reports = strictReportTargets(options.report, options.strict, 'replay');
      if (options.stdio) {
        const { runStdioReplay } = await import('./stdio-commands.js');
        result.code = await runStdioReplay(recording, { ...options, maxRequestBytes, reports });
        return;
      }
      if (options.ndjson) {
        const { runNdjsonReplay } = await import('./stdio-commands.js');
        const stopped = new Promise<NodeJS.Signals>((resolve) => {
          process.once('SIGINT', () => resolve('SIGINT'));
          process.once('SIGTERM', () => resolve('SIGTERM'));
        });
        result.code = await runNdjsonReplay(recording, { ...options, maxRequestBytes, reports, shutdownGraceMs }, stopped);
        return;
      }
      const [{ startReplay }, { startMissRecorder }, { createReplayView, formatSummary }] = await Promise.all([import('../replay/start-replay.js'), import('../record/start-miss-recorder.js'), import('./replay-view.js')]);
      const withCommand = command.length > 0;
      // The command's stdout is its own: with one, every line of ours goes to stderr, and none per served exchange.
      const style = styleFor(withCommand ? process.stderr : process.stdout);
      const say = withCommand ? (line: string) => process.stderr.write(`${LINE_PREFIX}${line}\n`) : (line: string) => process.stdout.write(`${line}\n`);
      let served = 0;
      const servedIds = new ServedExchanges();
      const view = createReplayView({ json: Boolean(options.json), quiet: Boolean(options.quiet) || withCommand, style, print: say });
      const caDir = options.caDir ?? defaultCaDir();
      const replay = await startReplay({
        recording,
        listen: options.listen,
        timing: options.timing,
        onMiss: options.onMiss,
        target: options.target,
        ...tls,
        missesOut: options.missesOut,
        overwriteMisses: options.overwrite,
        missRecording,
        reuse: options.reuse,
        strict: options.strict,
        ignore: options.ignore,
        maxRequestBytes,
        shutdownGraceMs,
        faults,
        cors: options.cors !== 'off',
        ...(options.forward ? { forward: true, caDir, proxyAuth: options.proxyAuth } : {}),
        log: { served: (e) => (served++, servedIds.add(e), view.served(e)), miss: view.miss },
      }, startMissRecorder);
      // Listen for the stop signal before saying "listening": a script may send it the moment it reads that line.
      const stopped = new Promise<NodeJS.Signals>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
      warnIfReachable('replay', options.listen, replay.url);
      warnIfInsecure(options, options.target ?? (options.forward ? 'the origins' : undefined));
      for (const warning of replay.warnings) process.stderr.write(`${LINE_PREFIX}warning: ${oneLine(warning)}\n`);
      if (options.json) {
        process.stdout.write(JSON.stringify({ event: 'listening', url: replay.url, wsUrl: replay.wsUrl, recording: replay.recording, missesOut: replay.missesOut }) + '\n');
      } else if (!withCommand || !options.quiet) {
        say(`${withCommand ? 'forward replay ' : ''}listening on ${replay.url}`);
        if (!options.quiet && !withCommand) {
          const misses = options.forward
            ? replay.missesOut
              ? `as a forward proxy (HTTPS_PROXY=${replay.url}, the CA from ca --env); misses are forwarded to the origin each names and ${replay.missesOut === replay.recording ? 'appended to the recording (served from the next replay on)' : `recorded to ${replay.missesOut}`}`
              : `as a forward proxy (HTTPS_PROXY=${replay.url}, the CA from ca --env), a host it does not hold gets 502; misses: ${replay.missAnswers}`
            : !replay.missesOut
            ? `misses: ${replay.missAnswers}`
            : replay.missesOut === replay.recording
              ? `misses are forwarded to ${options.target} and appended to the recording (served from the next replay on)`
              : `misses are forwarded to ${options.target} and recorded to ${replay.missesOut}`;
          process.stdout.write(style.dim(`replaying ${replay.recording} (timing ${options.timing}); ${misses}; Ctrl-C to stop`) + '\n');
        }
      }
      // Loaded only with a command to run: it brings the local CA and the child's plumbing.
      const commandCode = withCommand ? await (await import('./forward-command.js')).runThroughForwardProxy(command, replay.url, caDir, options.proxyAuth) : undefined;
      const signal = commandCode !== undefined ? `${command[0]} exited ${commandCode}` : await stopped;
      const summary = await replay.close();
      if (options.json) {
        process.stdout.write(
          JSON.stringify({
            event: 'summary',
            signal,
            served,
            misses: summary.misses.length,
            unused: summary.unused.map((e) => e.id),
            unusedCount: summary.unused.length,
            recorded: summary.recorded,
            strict: options.strict === true,
            ok: summary.ok,
            ...(summary.faults.length > 0 ? { faults: summary.faults } : {}),
            ...(summary.missesOut ? { missesOut: summary.missesOut } : {}),
          }) + '\n',
        );
      } else {
        for (const line of formatSummary(signal, summary, served, style).split('\n')) say(line);
      }
      await emitReports(() => replayReport('replay', recording, (o) => o.httpReplayOutcome(summary, servedIds.ids)), reports);
      // With a command, its code; a --strict failure only turns its success into a failure.
      result.code = commandCode !== undefined && commandCode !== EXIT_OK ? commandCode : summary.ok ? EXIT_OK : EXIT_FINDINGS;
    });
}

/** The first flag given that says how forwarded misses are recorded, if any. */
function missRuleFlag(options: ReplayCommandOptions): string | undefined {
  if (options.redactHeader.length > 0) return '--redact-header';
  if (options.redactQuery.length > 0) return '--redact-query';
  if (options.redactField.length > 0) return '--redact-field';
  if (options.keepSecretsMatching.length > 0) return '--keep-secrets-matching';
  if (options.maxBody !== undefined) return '--max-body';
  if (options.schemas.length > 0) return '--schemas';
  return undefined;
}
