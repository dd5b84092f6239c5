import { PassThrough } from 'node:stream';
import { startStdioRecorder } from '../record/relay/stdio-recorder.js';
import type { RecordingPipeline } from '../record/open-recording-sink.js';
import { ExchangeErrorCode } from '../core/errors.js';
import type { ScriptExchange } from '../replay/replay-script.js';
import { ANSWER_WAIT_MS } from './ws-conversation.js';
import { LineAnswers } from './line-answers.js';
import { ConnectionIds } from './connection-ids.js';
import { Substitution } from '../match/correlation.js';
import { AS_FAST_AS_ANSWERED, connectionSchedule, type Pacing } from './pacing.js';

export interface StdioRedriveOptions {
  /** The agent command and its arguments, started through the stdio recorder. */
  command: string;
  args: readonly string[];
  /** The agent's environment; default ours. */
  env?: NodeJS.ProcessEnv;
  out: string;
  overwrite?: boolean;
  pipeline?: RecordingPipeline;
  /** Fields the new recording redacts (those given values at redrive time). */
  redactFields?: string[];
  /** As fast as the agent answers (default), or each line at its recorded offset from the agent's start too. */
  pacing?: Pacing;
  /** How long a recorded answer is waited for before the next line goes anyway (and, at the end, before the agent is stopped). */
  waitMs?: number;
}

export interface StdioRedriveResult {
  out: string;
  /** The client lines written to the agent. */
  lines: number;
  /** Why the agent did not run as the recording's did (it could not start, or exited before it wrote a line). */
  error?: string;
}

/**
 * Plays the client side of a recorded stdio exchange against a new agent, run through the stdio
 * recorder (the one recording path: verdicts, redaction): each recorded stdin line is written once
 * as many stdout lines have come from the agent as had come before it in the recording (the answers
 * it waited for), with the ids the agent minted earlier in the conversation in place of the recorded
 * ones (an ACP sessionId), then stdin ends as recorded, at the same point of the conversation (an
 * agent that answers only once its stdin has ended is not kept waiting). Paced, each line and the
 * end wait for their recorded offsets too. Where the recorded agent exited before its stdin ended,
 * the new one is given the time to do so too. An agent still running a wait after its stdin ended is
 * sent SIGTERM. A failure is an outcome, never a throw, once the agent has started.
 */
export async function redriveStdioExchange(exchange: ScriptExchange, options: StdioRedriveOptions): Promise<StdioRedriveResult> {
  const waitMs = options.waitMs ?? ANSWER_WAIT_MS;
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const recorder = await startStdioRecorder({
    command: options.command,
    args: [...options.args],
    env: options.env,
    out: options.out,
    overwrite: options.overwrite,
    pipeline: options.pipeline,
    redactFields: options.redactFields,
    stdin,
    stdout,
    stderr: new PassThrough().resume(),
  });
  const answers = new LineAnswers(stdout);
  const minted = new ConnectionIds(
    exchange.messages.filter((m) => m.sender === 'server' && m.carrier === 'line' && m.channel !== 'stderr').map((m) => m.json),
    new Substitution(),
  );
  const done = recorder.done.finally(() => answers.end());
  let lines = 0;
  let notOpened: unknown;
  try {
    await recorder.ready;
    const schedule = connectionSchedule(options.pacing ?? AS_FAST_AS_ANSWERED, exchange);
    let serverSoFar = 0;
    for (const message of exchange.messages) {
      if (message.carrier !== 'line') continue;
      if (message.sender === 'server') {
        if (message.channel !== 'stderr') serverSoFar++;
        continue;
      }
      await answers.wait(serverSoFar, waitMs);
      await schedule.wait(message.tOffsetMs);
      if (answers.hasEnded) break;
      minted.learn(answers.received);
      stdin.write(minted.ids.apply(message.raw));
      lines++;
    }
    // Stdin ends where the recording's did: once the stdout lines recorded before its end have come
    // (all of them in a recording made before that moment was stored).
    await answers.wait(exchange.stdinEndedMs === null ? serverSoFar : stdoutLinesBefore(exchange, exchange.stdinEndedMs), waitMs);
    if (exchange.stdinEndedMs !== null) await schedule.wait(exchange.stdinEndedMs);
    // The recorded agent exited with its stdin still open: the new one is given the time to do the same.
    if (exchange.errorCode === ExchangeErrorCode.E_UPSTREAM_ENDED) await answers.wait(Number.POSITIVE_INFINITY, waitMs);
  } catch (error) {
    // The recording file could not be opened: the recorder stops the agent; this is told once it has exited.
    notOpened = error;
  }
  stdin.end();
  const stop = setTimeout(() => recorder.kill('SIGTERM'), waitMs);
  stop.unref();
  const result = await done;
  clearTimeout(stop);
  if (notOpened !== undefined) throw notOpened;
  return { out: recorder.out, lines, ...(result.error !== undefined ? { error: result.error } : result.recordingError !== undefined ? { error: result.recordingError } : {}) };
}

/** How many stdout lines the recorded agent had written by `atMs`. */
function stdoutLinesBefore(exchange: ScriptExchange, atMs: number): number {
  return exchange.messages.filter((m) => m.sender === 'server' && m.carrier === 'line' && m.channel !== 'stderr' && m.tOffsetMs <= atMs).length;
}
