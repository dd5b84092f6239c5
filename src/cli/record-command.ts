import { Command } from 'commander';
// Only light modules statically (the options and help); the recorder, the protocol catalog and the
// inspector load in the action, so that starting the CLI stays fast.
import { UsageError } from '../core/errors.js';
import { parseRecordingProtocolOption, RECORDING_PROTOCOL_CHOICES } from '../judge/protocol-option.js';
import type { CommandResult } from './command-result.js';
import { collect, shutdownGraceOfFlag, shutdownGraceOption } from './option-parsers.js';
import { parseIgnoreOption } from '../core/field-specs.js';
import { EXIT_OK } from './exit-codes.js';
import { closedRecording, createLiveView } from './live-view.js';
import { styleFor } from '../core/style.js';
import { warnIfReachable } from './exposure-warning.js';
import { inspectorListen } from '../ui/server/inspector-listen.js';
import type { RunningInspector } from '../ui/server/inspector-server.js';
import type { LiveListener } from '../record/live-events.js';
import { totalsText } from './totals-text.js';
import { groupedCount, LONG_READ_MESSAGES, progressLine } from './progress-line.js';
import { tlsFlagOptions, tlsOptionsOf, warnIfInsecure, type TlsFlags } from './tls-flags.js';
import { keepSecretsMatchingOf, keepSecretsOption, maxBodyOf } from './recording-rule-flags.js';

interface RecordOptions extends TlsFlags {
  shutdownGrace?: string;
  target?: string;
  listen?: string;
  out?: string;
  protocol: string;
  redactHeader: string[];
  redactQuery: string[];
  redactField: string[];
  keepSecretsMatching: string[];
  maxBody?: string;
  schemas: string[];
  json?: boolean;
  quiet?: boolean;
  overwrite?: boolean;
  stdio?: boolean;
  ndjson?: boolean;
  jsonLog?: string;
  ui?: string | boolean;
  allowRemote?: boolean;
  forward?: boolean;
  proxyAuth?: string;
  tunnel: string[];
  intercept: string[];
  caDir?: string;
}

export function recordCommand(result: CommandResult): Command {
  const [ca, insecure, tlsCert, tlsKey] = tlsFlagOptions('an https:// --target');
  return new Command('record')
    .description('run the transparent proxy and record every exchange and message, with verdicts, into SQLite')
    .argument('[command...]', 'with --stdio: the agent command and its arguments, after --; with --forward: a command to run through the proxy')
    .option('--target <url>', 'where to forward: http[s]://host[:port][/base] or unix:/path.sock (required unless --stdio or --forward)')
    .option('--forward', 'be an HTTP forward proxy (HTTP_PROXY): each request names its own origin; CONNECT is tunnelled')
    .option('--proxy-auth <user:pass>', 'with --forward: clients must send these Basic credentials in Proxy-Authorization')
    .option('--tunnel <host-glob>', 'with --forward: CONNECT hosts whose bytes pass through unread, e.g. *.example.com (repeatable)', collect, [])
    .option('--intercept <host-glob>', 'with --forward: CONNECT hosts to intercept (repeatable; default all but --tunnel ones)', collect, [])
    .option('--ca-dir <dir>', "with --forward: the local CA's folder, made on first use (default $XDG_CONFIG_HOME/agent-proxy/ca)")
    .option('--stdio', 'run the agent command given after -- and record its stdin/stdout lines (Pi RPC or ACP)')
    .option('--ndjson', "relay and record the daemon's NDJSON unix socket (--target unix:… --listen unix:…)")
    .option('--json-log <file>', 'with --stdio: write the live view as NDJSON to this file instead of stderr')
    .option('--listen <addr>', '[host:]port or unix:/path.sock (default 127.0.0.1:8788; 0 picks a free port)')
    .option('--out <file>', 'recording file (default recordings/<UTC timestamp>.db)')
    .option('--protocol <id>', `protocol of the traffic: ${RECORDING_PROTOCOL_CHOICES.join(', ')}`, 'auto')
    .option('--redact-header <name>', 'another header whose value is never stored (repeatable)', collect, [])
    .option('--redact-query <name>', 'another query parameter whose value is never stored (repeatable)', collect, [])
    .option('--redact-field <field>', 'another JSON field whose value is never stored: a key name (any depth) or a JSON pointer (repeatable)', collect, [])
    .addOption(keepSecretsOption('the recording'))
    .option('--max-body <size>', 'messages larger than this are stored truncated: bytes, or with a unit (64KiB, 10MB) (default 10MiB)')
    .option('--schemas <dir>', 'extra schema directory (repeatable); also AGENT_PROXY_SCHEMAS', collect, [])
    .option('--overwrite', 'replace the output file (and the --json-log file) if it exists')
    .option('--json', 'print NDJSON events on stdout')
    .option('--quiet', 'print only the first and the last line')
    .option('--ui [addr]', 'also serve the inspector page live on [host:]port (default 127.0.0.1:8790; 0 picks a free port)')
    .addOption(shutdownGraceOption())
    .option('--allow-remote', 'allow a --ui address other machines can reach (anyone who reaches it can read the recording)')
    .addOption(ca)
    .addOption(insecure)
    .addOption(tlsCert)
    .addOption(tlsKey)
    .action(async (command: string[], options: RecordOptions) => {
      const style = styleFor(process.stdout);
      // A family (the daemon's, `pi-daemon`): its protocols are told apart per exchange.
      const protocol = parseRecordingProtocolOption(options.protocol);
      const maxBodyBytes = maxBodyOf(options.maxBody);
      const shutdownGraceMs = shutdownGraceOfFlag(options.shutdownGrace);
      if (shutdownGraceMs !== undefined && options.stdio) throw new UsageError('--shutdown-grace goes with a proxy that listens, not --stdio');
      if (options.stdio && options.ndjson) throw new UsageError('--stdio and --ndjson exclude each other');
      const forwardOnly = [options.proxyAuth !== undefined && '--proxy-auth', options.caDir !== undefined && '--ca-dir', options.tunnel.length > 0 && '--tunnel', options.intercept.length > 0 && '--intercept'].find(Boolean);
      if (forwardOnly && !options.forward) throw new UsageError(`${forwardOnly} goes with --forward`);
      if (options.forward) {
        const clash = [options.target !== undefined && '--target', options.stdio && '--stdio', options.ndjson && '--ndjson', options.tlsCert !== undefined && '--tls-cert', options.jsonLog !== undefined && '--json-log', options.ui !== undefined && '--ui'].find(Boolean);
        if (clash) throw new UsageError(`${clash} does not go with --forward`);
        const { runForwardRecord } = await import('./forward-record.js');
        result.code = await runForwardRecord(command, {
          ...options,
          protocol,
          maxBodyBytes,
          upstreamTls: tlsOptionsOf(options).upstreamTls,
          redactFields: parseIgnoreOption(options.redactField, '--redact-field'),
          keepSecretsMatching: keepSecretsMatchingOf(options.keepSecretsMatching),
          shutdownGraceMs,
          style,
        });
        return;
      }
      const tls = tlsOptionsOf(options, options.stdio ? '--stdio' : options.ndjson ? '--ndjson' : undefined);
      const redactFields = parseIgnoreOption(options.redactField, '--redact-field');
      const keepSecretsMatching = keepSecretsMatchingOf(options.keepSecretsMatching);
      const redactQuery = options.redactQuery.map((name) => {
        if (name.trim() === '') throw new UsageError('--redact-query needs a parameter name');
        return name;
      });
      if (redactQuery.length > 0 && (options.stdio || options.ndjson)) throw new UsageError('--redact-query goes with the HTTP proxy (stdio and NDJSON carry no URLs)');
      if (options.ui !== undefined && (options.stdio || options.ndjson)) throw new UsageError('--ui goes with the HTTP proxy for now (not --stdio or --ndjson)');
      const uiListen = typeof options.ui === 'string' ? options.ui : undefined;
      // Refused before anything starts, so no recording file is left behind.
      if (options.ui !== undefined) inspectorListen(uiListen, options.allowRemote, '--ui');
      if (options.stdio) {
        // stdout belongs to the agent's protocol: nothing of ours is ever printed there.
        const { runStdioRecord } = await import('./stdio-commands.js');
        result.code = await runStdioRecord(command, { ...options, maxBody: maxBodyBytes, redactFields, keepSecretsMatching });
        return;
      }
      if (command.length > 0) throw new UsageError(`unexpected argument '${command[0]}' (an agent command needs --stdio)`);
      if (options.jsonLog) throw new UsageError('--json-log goes with --stdio');
      if (options.ndjson) {
        const { runNdjsonRecord } = await import('./stdio-commands.js');
        const view = createLiveView({ json: Boolean(options.json), quiet: Boolean(options.quiet), style, startedAt: new Date(), totals: () => ({ exchanges: 0, messages: 0, invalid: 0, findings: 0 }) });
        const stopped = new Promise<NodeJS.Signals>((resolve) => {
          process.once('SIGINT', () => resolve('SIGINT'));
          process.once('SIGTERM', () => resolve('SIGTERM'));
        });
        result.code = await runNdjsonRecord({ ...options, maxBody: maxBodyBytes, redactFields, keepSecretsMatching, listener: view.listener, onStopped: view.stopped, shutdownGraceMs }, stopped);
        return;
      }
      if (!options.target) throw new UsageError("required option '--target <url>' not specified");
      const { startRecorder } = await import('../record/start-recorder.js');
      let totals = () => ({ exchanges: 0, messages: 0, invalid: 0, findings: 0 });
      let publish: LiveListener = () => undefined;
      let inspector: RunningInspector | undefined;
      const view = createLiveView({ json: Boolean(options.json), quiet: Boolean(options.quiet), style, startedAt: new Date(), totals: () => totals() });
      const recorder = await startRecorder({
        target: options.target!,
        ...tls,
        listen: options.listen,
        out: options.out,
        protocol,
        redactHeaders: options.redactHeader,
        redactQuery,
        redactFields,
        keepSecretsMatching,
        maxBodyBytes,
        schemas: options.schemas,
        overwrite: options.overwrite,
        shutdownGraceMs,
        // With --quiet nothing is printed per exchange, so the recorder need not report them (unless the page wants them).
        listener:
          options.ui !== undefined
            ? (event) => {
                if (!options.quiet) view.listener(event);
                publish(event);
              }
            : options.quiet
              ? undefined
              : view.listener,
        onStopped: view.stopped,
        // Started as part of the recorder: if --ui cannot listen, no recording file is left behind.
        starting:
          options.ui === undefined
            ? undefined
            : async (out) => {
                const { startInspector } = await import('../ui/server/inspector-server.js');
                inspector = await startInspector({ recording: out, live: true, listen: uiListen, allowRemote: options.allowRemote, listenFlag: '--ui' });
                publish = inspector.publish;
              },
      });
      totals = recorder.totals;
      // Listen for the signals before announcing the address: a caller may signal right after it.
      const stopped = new Promise<NodeJS.Signals>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
      warnIfReachable('record', options.listen, recorder.url);
      warnIfInsecure(options, recorder.target);
      if (inspector) warnIfReachable('inspector', uiListen, inspector.url);
      if (options.json) {
        process.stdout.write(JSON.stringify({ event: 'listening', url: recorder.url, target: recorder.target, out: recorder.out }) + '\n');
        if (inspector) process.stdout.write(JSON.stringify({ event: 'inspector', url: inspector.url }) + '\n');
      } else {
        process.stdout.write(`listening on ${recorder.url} -> ${recorder.target}\n`);
        if (inspector) process.stdout.write(`inspector on ${inspector.url}\n`);
        if (!options.quiet) process.stdout.write(style.dim(`recording to ${recorder.out}; Ctrl-C to stop`) + '\n');
      }
      const signal = await stopped;
      await inspector?.close();
      // A recording that stopped early (a write failed, the worker ended) still gets its summary,
      // then the error, which makes the exit code 2.
      // Closing moves the messages' bytes into compressed blocks (store/raw-block-compaction.ts): 200,000 messages
      // take a second or two, said on a terminal as the other long commands do.
      const closing = progressLine(process.stderr);
      const messages = totals().messages;
      if (messages >= LONG_READ_MESSAGES) {
        view.clearStatus();
        closing.update(`storing ${groupedCount(messages)} messages compressed…`);
      }
      const { totals: final, error } = await closedRecording(recorder);
      closing.done();
      view.clearStatus();
      if (options.json) {
        process.stdout.write(JSON.stringify({ event: 'summary', signal, ...final, out: recorder.out, ...(error ? { stored: false } : {}) }) + '\n');
      } else {
        process.stdout.write(
          `stopped (${signal}): ${totalsText(final)} -> ${recorder.out}${error ? ' (incomplete)' : ''}\n`,
        );
      }
      if (error) throw error;
      result.code = EXIT_OK;
    });
}
