import type { Readable } from 'node:stream';
import { LineFramer, type LineFrame } from '../../framing/line-framer.js';
import { replayHintsOf, type ProtocolId } from '../../protocols/catalog.js';
import type { Clock } from '../clock.js';
import type { ChosenFaults } from '../fault/fault-plan.js';
import type { ScriptMessage } from '../replay-script.js';
import { DEFAULT_MAX_REQUEST_BYTES } from '../http/request-limits.js';
import { PlaybackClock, type Timing } from '../timing.js';
import { FrameCorrelator } from '../ws/ws-frames.js';
import { PendingTurns } from '../pending-turns.js';
import { parseJsonBody } from '../http/request-body.js';

/**
 * The turn-by-turn replay of a line protocol (stdio JSON-RPC / Pi RPC, the daemon's NDJSON socket):
 * the same steps as a replayed WebSocket, with lines for frames. Comparison, id learning and
 * substitution are the WebSocket player's FrameCorrelator: a recorded line is a text frame.
 */

/** One recorded client line the replay waits for, and the server lines that followed it. */
export interface LineTurn {
  client: ScriptMessage;
  replies: ScriptMessage[];
}

export interface LinePlan {
  /** Server lines recorded before the first client line. */
  preamble: ScriptMessage[];
  turns: LineTurn[];
}

/** Splits recorded lines at the client's; server lines keep their channel (`stdout`, `stderr`, or none). */
export function planLines(messages: readonly ScriptMessage[]): LinePlan {
  const preamble: ScriptMessage[] = [];
  const turns: LineTurn[] = [];
  for (const message of messages) {
    if (message.carrier !== 'line') continue;
    if (message.sender === 'client') turns.push({ client: message, replies: [] });
    else (turns.at(-1)?.replies ?? preamble).push(message);
  }
  return { preamble, turns };
}

/** Lines a client may send ahead of the conversation before its input is paused. */
const MAX_QUEUED_LINES = 1024;

/**
 * Queues the LF-framed lines of a readable until the conversation asks for them; undefined at the end.
 * A client that writes far ahead of the replay (the replay keeps the recorded pace) is paused rather
 * than queued without bound, and of a line longer than `maxLineBytes` only that many bytes are held
 * (the conversation answers it as a miss).
 */
export class LineInbox {
  private readonly framer: LineFramer;
  private readonly queue: LineFrame[] = [];
  private waiter: ((line: LineFrame | undefined) => void) | undefined;
  private ended = false;
  private paused = false;

  constructor(
    private readonly input: Readable,
    readonly maxLineBytes = DEFAULT_MAX_REQUEST_BYTES,
  ) {
    this.framer = new LineFramer(maxLineBytes);
    input.on('data', (chunk: Buffer) => {
      for (const frame of this.framer.push(chunk)) this.push(frame);
    });
    const end = () => {
      if (this.ended) return;
      for (const frame of this.framer.end()) this.push(frame);
      this.ended = true;
      const waiter = this.waiter;
      this.waiter = undefined;
      waiter?.(undefined);
    };
    input.on('end', end);
    input.on('close', end);
    input.on('error', end);
  }

  /** Stops waiting: the conversation sees the end of the input (shutdown). */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.queue.length = 0;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(undefined);
  }

  next(): Promise<LineFrame | undefined> {
    const line = this.queue.shift();
    if (this.paused && this.queue.length <= MAX_QUEUED_LINES / 2) {
      this.paused = false;
      this.input.resume();
    }
    if (line || this.ended) return Promise.resolve(line);
    return new Promise((resolve) => (this.waiter = resolve));
  }

  private push(frame: LineFrame): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    if (waiter) return waiter(frame);
    this.queue.push(frame);
    if (!this.paused && this.queue.length >= MAX_QUEUED_LINES) {
      this.paused = true;
      this.input.pause();
    }
  }
}

/** A live line that matched no recorded one. */
export interface LineMiss {
  line: LineFrame;
  /** The recorded client line it was compared with; undefined when the recording expects no more. */
  expected: ScriptMessage | undefined;
  differences: string[];
  /** Set when the line was longer than this limit (`--max-request-body`): it was not compared. */
  tooLong?: number;
}

/**
 * Faults injected into one line session: a latency before the first line written, a gap before
 * every later one, and a stop once `stopAfter` lines were written (miss answers included).
 */
export interface LineFaults {
  latencyMs: number;
  gapMs: number;
  stopAfter?: number;
}

/** What a line session's conversation applies of the faults chosen for it (undefined: none, no waiting added); `stopAfter` comes from the transport's ending fault. */
export function lineFaultsOf(chosen: ChosenFaults, stopAfter: number | undefined): LineFaults | undefined {
  if (chosen.specs.length === 0) return undefined;
  return { latencyMs: chosen.latencyMs, gapMs: chosen.gapMs, ...(stopAfter === undefined ? {} : { stopAfter }) };
}

/** Where the conversation sends recorded server lines; resolves once the line may be followed by more. */
export type LineWriter = (bytes: Buffer, message: ScriptMessage) => Promise<void>;

export interface LineConversationOptions {
  protocol: ProtocolId | undefined;
  ignore: readonly string[];
  timing: Timing;
  clock: Clock;
  /** The recorded moment the conversation starts at (the child's start, the connection's). */
  anchorMs: number;
  write: LineWriter;
  /** Told about each miss; what it returns (an error response) is written back to the client. */
  onMiss(miss: LineMiss): Buffer | undefined;
  signal?: AbortSignal;
  faults?: LineFaults;
  /**
   * The recorded peer ended the conversation before its client did (the daemon ended the connection,
   * the agent exited): the conversation ends once the peer's last line is written, instead of waiting
   * for the client's end. Client lines recorded after that line were never answered, and are not awaited.
   */
  peerEnds?: boolean;
}

export interface LineConversationResult {
  /** Server lines written. */
  sent: number;
  misses: LineMiss[];
  /** Recorded client lines that never came (the client ended first). */
  unused: ScriptMessage[];
  /** Correlation pairs learnt. */
  substitutions: number;
  /** Live values that matched a value the recording redacted. */
  redacted: number;
  /** True when the conversation stopped because an injected fault's `stopAfter` lines were written. */
  faulted: boolean;
  /** True when it ended where the recorded peer ended it (`peerEnds`), its last line written. */
  peerEnded: boolean;
}

/**
 * Plays a recorded line conversation to a live client:
 * 1. the server lines recorded before the first client line;
 * 2. for each recorded client line, the next live line is awaited and compared after normalization,
 *    with the ids it carries substituted; on a match the server lines recorded after it are written
 *    (live ids in place) at the recorded pace from the moment it arrived. A live line that does not
 *    match is a miss: the client gets the miss answer, and the replay keeps waiting for the line it
 *    expects, so one stray line does not derail the rest. The client's answer to a request the
 *    replay sent is taken whenever it comes, before or after its own next line (pending-turns.ts).
 * 3. once the recording is played out, any further line is a miss, until the client ends.
 * With `faults`, every line written waits the fault's latency (the first) or gap (the others) on
 * top of the recorded pace, and the conversation stops once `stopAfter` lines were written.
 */
export async function playLineConversation(plan: LinePlan, inbox: LineInbox, options: LineConversationOptions): Promise<LineConversationResult> {
  const correlator = new FrameCorrelator(options.protocol, options.ignore);
  const clock = new PlaybackClock(options.timing, options.anchorMs, options.clock);
  const misses: LineMiss[] = [];
  const faults = options.faults;
  let sent = 0;
  let written = 0;
  let faulted = faults?.stopAfter === 0;
  // Where the peer ended it, the conversation ends after the last turn the peer answered.
  const turns = options.peerEnds ? plan.turns.slice(0, lastAnswered(plan) + 1) : plan.turns;
  const pending = new PendingTurns(turns, options.protocol && replayHintsOf(options.protocol)?.peerRequest);
  const ended = (unused: readonly LineTurn[]): LineConversationResult => ({
    sent,
    misses,
    unused: unused.map((t) => t.client),
    substitutions: correlator.substitutions,
    redacted: correlator.redacted,
    faulted,
    peerEnded: false,
  });

  /** Writes one line after the injected latency or gap; false when the conversation was stopped meanwhile. */
  const write = async (bytes: Buffer, message: ScriptMessage): Promise<boolean> => {
    const added = faults ? (written === 0 ? faults.latencyMs : faults.gapMs) : 0;
    if (added > 0) await clock.hold(added, options.signal);
    if (options.signal?.aborted) return false;
    await options.write(bytes, message);
    written++;
    if (faults?.stopAfter !== undefined && written >= faults.stopAfter) faulted = true;
    return true;
  };
  const play = async (messages: readonly ScriptMessage[]) => {
    for (const message of messages) {
      if (faulted) return;
      await clock.wait(message.tOffsetMs, options.signal);
      if (options.signal?.aborted) return;
      // Substitution works on text frames; stderr passes as recorded.
      const bytes = message.channel === 'stderr' ? message.raw : correlator.substitute(asText(message));
      if (!(await write(bytes, message))) return;
      if (message.channel !== 'stderr') pending.written(message);
      sent++;
    }
  };
  const miss = async (line: LineFrame, expected: ScriptMessage | undefined, differences: string[]) => {
    const report: LineMiss = { line, expected, differences };
    if (line.totalBytes > line.raw.length) report.tooLong = inbox.maxLineBytes;
    misses.push(report);
    const answer = options.onMiss(report);
    if (answer) await write(answer, { ...(expected ?? SYNTHETIC), channel: expected?.channel === 'stdin' ? 'stdout' : null });
  };

  if (faulted) return ended(plan.turns);
  await play(plan.preamble);
  while (!pending.done) {
    if (options.signal?.aborted || faulted) return ended(pending.untaken());
    const line = await inbox.next();
    if (!line) return ended(pending.untaken());
    // Only the start of an over-long line was kept: it cannot be compared, only refused.
    if (line.totalBytes > line.raw.length) {
      await miss(line, pending.next()?.client, ['size']);
      continue;
    }
    const live = { channel: 'text' as const, data: line.raw };
    const found = pending.match(() => parseJsonBody(line.raw), (recorded) => correlator.differences(asText(recorded), live));
    if (!('turn' in found)) {
      await miss(line, found.expected?.client, found.differences);
      continue;
    }
    correlator.learn(asText(found.turn.client), live);
    clock.reanchor(found.turn.client.tOffsetMs);
    await play(found.turn.replies);
  }
  if (options.peerEnds) return { ...ended([]), peerEnded: !options.signal?.aborted && !faulted };
  for (;;) {
    if (options.signal?.aborted || faulted) break;
    const line = await inbox.next();
    if (!line) break;
    await miss(line, undefined, ['line']);
  }
  return ended([]);
}

/** The index of the last turn with a server line after its client line; -1 when only the preamble has any. */
function lastAnswered(plan: LinePlan): number {
  for (let i = plan.turns.length - 1; i >= 0; i--) if (plan.turns[i].replies.length > 0) return i;
  return -1;
}

const SYNTHETIC: ScriptMessage = { seq: 0, sender: 'server', carrier: 'line', channel: null, raw: Buffer.alloc(0), json: undefined, tOffsetMs: 0, truncated: false };

/** A recorded line as the correlator compares it: a text frame. An unterminated line is compared without a LF. */
function asText(message: ScriptMessage): ScriptMessage {
  return { ...message, channel: 'text' };
}
