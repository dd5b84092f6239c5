import { spawn, type ChildProcess } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { FlowGate, forwardHeld } from './flow-gate.js';
import type { BodyTap } from '../pipeline/recording-sink.js';
import type { RecordingTotals } from '../pipeline/recording-sink.js';
import { openLineSink, type LineSinkOptions } from '../worker/stdio-recording-sink.js';
import { parseStdioProtocol, type StdioProtocol } from '../pipeline/stdio-protocols.js';
import { ExchangeErrorCode } from '../../core/errors.js';
import { spawnFailureReason } from '../../net/unreachable-reason.js';

export { STDIO_PROTOCOLS, stdioHint, type StdioProtocol } from '../pipeline/stdio-protocols.js';

export interface StdioRecorderOptions extends Omit<LineSinkOptions, 'protocol'> {
  command: string;
  args?: string[];
  /** `pi-rpc` or `acp`, or undefined / `auto` to sniff the first lines. */
  protocol?: StdioProtocol | 'auto';
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Our side of the pipes; default process.stdin / stdout / stderr. */
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
}

export interface StdioResult {
  /** The child's exit code, null when a signal ended it. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** What `proxy record --stdio` exits with: the child's code, 128 + n for signal n, 127 if it could not start. */
  code: number;
  /** Why the child could not be started, or that it exited before it wrote a line: the agent never came up. */
  error?: string;
  /** Why the recording is incomplete, if recording failed while the child ran (traffic still flowed). */
  recordingError?: string;
  totals: RecordingTotals;
}

export interface RunningStdioRecorder {
  readonly out: string;
  readonly child: ChildProcess;
  /** Sends a signal to the child (SIGINT and SIGTERM are forwarded this way). */
  kill(signal: NodeJS.Signals): void;
  /**
   * Resolves once the recording file is open. The child is started before that, so that it is not kept
   * waiting; if the file cannot be opened this rejects, the child is sent SIGTERM and `done` follows.
   */
  readonly ready: Promise<void>;
  /** Resolves once the child has exited, every line is recorded and the recording is closed. */
  readonly done: Promise<StdioResult>;
}

/**
 * `proxy record --stdio -- <command>`: runs the agent as a child and stands in its place on our own
 * stdin and stdout. Every chunk is written onward first, unchanged, and only then framed into LF
 * lines and recorded (stdin lines as the client's, stdout lines as the agent's). The child's stderr
 * passes through to ours and is stored, unjudged, on channel `stderr`. One exchange per child.
 */
export async function startStdioRecorder(options: StdioRecorderOptions): Promise<RunningStdioRecorder> {
  const args = options.args ?? [];
  const commandLine = [options.command, ...args].map(quoteArg).join(' ');
  const protocol = parseStdioProtocol(options.protocol, 'startStdioRecorder protocol');
  const forced = protocol === 'auto' ? undefined : protocol;
  // The agent starts while the recording worker is still opening the file: an editor waiting for
  // its agent should not wait on us. If the file cannot be opened the agent is stopped again.
  const { sink, out, clock, ready } = await openLineSink({ ...options, protocol: forced }, commandLine, 'stdio');
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;

  const exchange = sink.openExchange({ transport: 'stdio', url: commandLine });

  // Its own process group: a Ctrl-C on the terminal reaches the child once, through us, not twice.
  const child = spawn(options.command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });

  // Capture only forwards and hands over raw chunks; lines are split, judged and stored by the recorder.
  const sniffStdio = forced === undefined;
  const inTap = exchange.tap({ kind: 'lines', sender: 'client', channel: 'stdin', sniffStdio });
  const outTap = exchange.tap({ kind: 'lines', sender: 'server', channel: 'stdout', sniffStdio });
  const errTap = exchange.tap({ kind: 'lines', sender: 'server', channel: 'stderr', judge: false, sniffStdio });

  const inGate = new FlowGate<'peer' | 'recorder'>(() => stdin.pause(), () => stdin.resume());
  const outGate = new FlowGate<'peer' | 'recorder'>(() => child.stdout!.pause(), () => child.stdout!.resume());
  const errGate = new FlowGate<'peer' | 'recorder'>(() => child.stderr!.pause(), () => child.stderr!.resume());
  const holdForRecorder = (gate: FlowGate<'peer' | 'recorder'>) => {
    if (sink.overloaded && gate.hold('recorder')) sink.onDrain(() => gate.release('recorder'));
  };

  let inEnded = false;
  // What tells an agent that never came up from one that ended: it wrote nothing, and no signal of ours ended it.
  let wroteOnStdout = false;
  let signalled = false;
  child.stdout!.once('data', () => (wroteOnStdout = true));
  const onStdinData = (chunk: Buffer) => {
    const at = clock.now();
    if (!child.stdin!.destroyed && !child.stdin!.write(chunk)) inGate.hold('peer');
    inTap.push(chunk, at);
    holdForRecorder(inGate);
  };
  const onStdinEnd = () => {
    if (inEnded) return;
    inEnded = true;
    const at = clock.now();
    inTap.end(true, at);
    // Stored, so that a redrive ends the new agent's stdin at the same point of the conversation.
    exchange.update({ stdinEndedMs: at });
    child.stdin!.end();
  };
  stdin.on('data', onStdinData);
  stdin.on('end', onStdinEnd);
  stdin.on('error', () => undefined);
  // Our reader going away (EPIPE) must not take the proxy down before the child has ended.
  stdout.on('error', () => undefined);
  stderr.on('error', () => undefined);
  child.stdin!.on('drain', () => inGate.release('peer'));
  // The child may exit without reading everything: EPIPE is its business, not a proxy failure.
  child.stdin!.on('error', () => inGate.release('peer'));

  pass(child.stdout!, stdout, outTap, outGate);
  pass(child.stderr!, stderr, errTap, errGate);
  function pass(from: Readable, to: Writable, tap: BodyTap, gate: FlowGate<'peer' | 'recorder'>): void {
    // A reader that went away (EPIPE, or its stream closed) will never drain: the agent must not stay
    // held for it, or it blocks on a full pipe and never exits. What it writes is still recorded.
    from.on('data', (chunk: Buffer) => {
      const at = clock.now();
      forwardHeld(to, chunk, gate);
      tap.push(chunk, at);
      holdForRecorder(gate);
    });
    from.on('end', () => tap.end(true, clock.now()));
  }

  const done = new Promise<StdioResult>((resolve) => {
    let spawnError: NodeJS.ErrnoException | undefined;
    child.once('error', (error: NodeJS.ErrnoException) => {
      spawnError = error;
      // A child that never started emits no 'close' on some platforms; make sure we finish.
      if (child.pid === undefined) setImmediate(() => finish(null, null));
    });
    let finished = false;
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null) => {
      if (finished) return;
      finished = true;
      stdin.off('data', onStdinData);
      stdin.off('end', onStdinEnd);
      stdin.pause();
      // The agent exited on its own while its stdin was still open: a replay exits there too, with its code.
      const exitedFirst = !inEnded && exitCode !== null && !signalled;
      if (!inEnded) {
        inEnded = true;
        inTap.end(true, clock.now());
      }
      const notStarted = spawnError !== undefined && child.pid === undefined;
      const exitedEarly = !notStarted && !wroteOnStdout && ((exitCode !== null && exitCode !== 0) || (signal !== null && !signalled));
      const how = signal !== null ? `was killed by ${signal}` : `exited with code ${exitCode}`;
      const error = notStarted ? `could not start ${options.command}: ${spawnFailureReason(spawnError!)}` : exitedEarly ? `the agent ${how} before it wrote a line on stdout` : undefined;
      const ended = { ...(exitCode !== null ? { exitCode } : {}), ...(signal ? { signal } : {}) };
      if (notStarted) exchange.end({ outcome: 'error', errorCode: ExchangeErrorCode.E_SPAWN, errorMessage: error });
      else if (exitedEarly) exchange.end({ outcome: 'error', errorCode: ExchangeErrorCode.E_AGENT_EXITED_EARLY, errorMessage: `${commandLine} ${how} before it wrote a line on stdout`, ...ended });
      else exchange.end({ outcome: 'complete', ...ended, ...(exitedFirst ? { errorCode: ExchangeErrorCode.E_UPSTREAM_ENDED, errorMessage: `the agent exited with code ${exitCode} before its stdin ended` } : {}) });
      const result = (totals: RecordingTotals, recordingError?: string): StdioResult => ({
        exitCode,
        signal,
        code: notStarted ? 127 : exitCodeOf(exitCode, signal),
        ...(error !== undefined ? { error } : {}),
        ...(recordingError ? { recordingError } : {}),
        totals,
      });
      sink.close(new Date()).then(
        (totals) => resolve(result(totals)),
        (error: Error) => resolve(result(sink.totals(), error.message)),
      );
    };
    child.once('close', (exitCode: number | null, signal: NodeJS.Signals | null) => finish(exitCode, signal));
  });

  ready.catch(() => {
    if (child.exitCode === null && child.signalCode === null) {
      signalled = true;
      child.kill('SIGTERM');
    }
  });

  return {
    out,
    child,
    ready,
    kill(signal) {
      if (child.exitCode === null && child.signalCode === null) {
        signalled = true;
        child.kill(signal);
      }
    },
    done,
  };
}

/** The shell's convention: the child's code, or 128 + the number of the signal that ended it. */
export function exitCodeOf(exitCode: number | null, signal: NodeJS.Signals | null): number {
  if (exitCode !== null) return exitCode;
  const number = signal ? (osConstants.signals as Record<string, number>)[signal] : undefined;
  return number === undefined ? 1 : 128 + number;
}

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
