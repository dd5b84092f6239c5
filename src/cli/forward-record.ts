import type { Style } from '../core/style.js';
import type { ProtocolId } from '../protocols/catalog.js';
import type { RecordingRules } from '../judge/recording-rules.js';
import type { UpstreamTlsOptions } from '../net/upstream-tls.js';
import { LINE_PREFIX } from '../core/program-name.js';
import { EXIT_OK } from './exit-codes.js';
import { closedRecording, createLiveView } from './live-view.js';
import { warnIfReachable } from './exposure-warning.js';
import { warnIfInsecure } from './tls-flags.js';
import { totalsText } from './totals-text.js';
import { runThroughForwardProxy } from './forward-command.js';
import { defaultCaDir } from '../net/ca/ca-folder.js';

export interface ForwardRecordFlags {
  /** --shutdown-grace, already checked. */
  shutdownGraceMs?: number;
  listen?: string;
  out?: string;
  protocol?: ProtocolId;
  redactHeader: string[];
  redactQuery: string[];
  redactFields: RecordingRules['redactFields'];
  keepSecretsMatching: string[];
  maxBodyBytes?: number;
  schemas: string[];
  json?: boolean;
  quiet?: boolean;
  overwrite?: boolean;
  insecure?: boolean;
  upstreamTls?: UpstreamTlsOptions;
  proxyAuth?: string;
  tunnel: string[];
  intercept: string[];
  caDir?: string;
  style: Style;
}

/**
 * `record --forward [-- <command …>]`. Without a command it runs until SIGINT or SIGTERM, as
 * `record` does. With one, it runs the command with the proxy's variables set, the command keeping
 * stdin, stdout and stderr (so our lines go to stderr, and no line per exchange is printed), and
 * ends when it ends, with its exit code; stopping the recorder stops the command first (a Ctrl-C reaches
 * it once: child-signals.ts).
 */
export async function runForwardRecord(command: string[], flags: ForwardRecordFlags): Promise<number> {
  const { startForwardRecorder } = await import('../record/start-forward-recorder.js');
  const withCommand = command.length > 0;
  let totals = () => ({ exchanges: 0, messages: 0, invalid: 0, findings: 0 });
  const quiet = Boolean(flags.quiet) || withCommand;
  const view = createLiveView({ json: Boolean(flags.json) && !withCommand, quiet, style: flags.style, startedAt: new Date(), totals: () => totals() });
  const recorder = await startForwardRecorder({
    listen: flags.listen,
    out: flags.out,
    protocol: flags.protocol,
    redactHeaders: flags.redactHeader,
    redactQuery: flags.redactQuery,
    redactFields: flags.redactFields,
    keepSecretsMatching: flags.keepSecretsMatching,
    maxBodyBytes: flags.maxBodyBytes,
    schemas: flags.schemas,
    overwrite: flags.overwrite,
    upstreamTls: flags.upstreamTls,
    proxyAuth: flags.proxyAuth,
    tunnel: flags.tunnel,
    intercept: flags.intercept,
    caDir: flags.caDir ?? defaultCaDir(),
    shutdownGraceMs: flags.shutdownGraceMs,
    listener: quiet ? undefined : view.listener,
    onStopped: view.stopped,
  });
  totals = recorder.totals;
  // With a command, the command's end ends the recording, and passStopSignals says what its signals do.
  const stopped = withCommand
    ? undefined
    : new Promise<NodeJS.Signals>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
  warnIfReachable('record', flags.listen, recorder.url);
  warnIfInsecure({ ca: [], insecure: flags.insecure }, 'the origins');
  // The command's stdout is its own: with one, every line of ours goes to stderr.
  const say = withCommand ? (line: string) => process.stderr.write(`${LINE_PREFIX}${line}\n`) : (line: string) => process.stdout.write(`${line}\n`);
  if (flags.json && !withCommand) process.stdout.write(JSON.stringify({ event: 'listening', url: recorder.url, target: recorder.target, out: recorder.out }) + '\n');
  else if (!flags.quiet || !withCommand) say(`forward proxy on ${recorder.url}, recording to ${recorder.out}${withCommand ? '' : '; Ctrl-C to stop'}`);

  let code = EXIT_OK;
  let ending: string;
  let signal: NodeJS.Signals | undefined;
  if (withCommand) {
    code = await runThroughForwardProxy(command, recorder.url, flags.caDir ?? defaultCaDir(), flags.proxyAuth);
    ending = `${command[0]} exited ${code}`;
  } else {
    signal = await stopped;
    ending = `stopped (${signal})`;
  }
  const { totals: final, error } = await closedRecording(recorder);
  view.clearStatus();
  if (flags.json && !withCommand) {
    process.stdout.write(JSON.stringify({ event: 'summary', signal, ...final, out: recorder.out, ...(error ? { stored: false } : {}) }) + '\n');
  } else if (!flags.quiet || error) {
    say(`${ending}: ${totalsText(final)} -> ${recorder.out}${error ? ' (incomplete)' : ''}`);
  }
  if (error) throw error;
  return code;
}
