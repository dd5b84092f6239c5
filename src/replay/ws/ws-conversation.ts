import { WebSocket } from 'ws';
import { CLOSE_NORMAL, forwardClose } from '../../net/ws-close-codes.js';
import type { Clock } from '../clock.js';
import { NO_FAULTS, type ChosenFaults } from '../fault/fault-plan.js';
import { faultNotice } from '../fault/fault-notice.js';
import type { ScriptMessage } from '../replay-script.js';
import { PlaybackClock, type Timing } from '../timing.js';
import { describeFrame, isControl, type FrameCorrelator, type LiveFrame } from './ws-frames.js';
import { WsInbox } from './ws-inbox.js';
import { frameMissReason, truncateUtf8, MAX_CLOSE_REASON_BYTES, type FrameMiss } from './ws-miss.js';
import type { WsPlan, WsTurn } from './ws-plan.js';
import { PendingTurns } from '../pending-turns.js';
import type { PeerRequestRole } from '../../protocols/protocol.js';
import { parseJsonBody } from '../http/request-body.js';

/** Past this many unsent bytes the player waits for the socket before sending more. */
const HIGH_WATER_BYTES = 1024 * 1024;
/** RFC 6455 policy violation: what a client frame that matches nothing gets. */
export const CLOSE_POLICY_VIOLATION = 1008;

export interface ConversationResult {
  /** Frames sent to the client (text, binary, ping, pong; the close not counted). */
  sent: number;
  /** The miss that closed the connection (1008): one the protocol has no answer for. */
  miss?: FrameMiss;
}

/** The protocol's answer to a frame that matched nothing (a text frame to send), or undefined for none; the caller reports the misses it answers. */
export type FrameMissAnswerer = (miss: FrameMiss) => string | undefined;

/**
 * Plays one recorded WebSocket connection to a live client, turn by turn:
 * 1. the server frames recorded before the first client frame;
 * 2. for each recorded client frame, the next live one is awaited and compared; on a match the ids
 *    it carries are learnt and the server frames recorded after it are sent (live ids in place),
 *    paced from the moment it arrived. A frame that does not match gets the protocol's miss answer
 *    (a JSON-RPC error with its id, a failed Pi response …) and the replay waits on for the recorded
 *    one; a frame the protocol has no answer for closes the connection with 1008. The client's
 *    answer to a request the replay sent is taken whenever it comes (pending-turns.ts);
 * 3. the recorded ending: the server's close code and reason, a cut, or waiting for the client.
 *
 * Live pings and pongs the recording does not expect at that point are keepalives, not
 * conversation: a ping is answered, a pong dropped. A recorded client ping or pong the live client
 * skipped is passed over (its pong is not sent).
 *
 * Injected faults (`faults`): a gap before every server frame after the first, and an ending of
 * their own once `after` server frames were sent: a close with the fault's code (`close`, or 1000
 * for `cut=clean`) or the socket destroyed without a close frame (`cut=reset`).
 */
export class WsConversation {
  private readonly inbox: WsInbox;
  private readonly clock: PlaybackClock;
  private readonly stopped = new AbortController();
  private sent = 0;
  /** The injected ending (close or cut) that comes after the fewest frames, if any. */
  private readonly faultEnd: { after: number; end: () => void } | undefined;
  /** True once an injected ending closed or cut the connection: nothing more is played. */
  private faulted = false;
  private readonly faults: ChosenFaults;
  /** The recorded client frames not yet taken, and which of them a live frame may be. */
  private readonly pending: PendingTurns<WsTurn>;

  constructor(
    private readonly ws: WebSocket,
    private readonly plan: WsPlan,
    private readonly correlator: FrameCorrelator,
    private readonly options: {
      timing: Timing;
      clock: Clock;
      anchorMs: number;
      answerMiss?: FrameMissAnswerer;
      faults?: ChosenFaults;
      /** The protocol's requests and answers: a client's answer to a request sent is taken whenever it comes (pending-turns.ts). */
      peerRequest?: (message: unknown) => PeerRequestRole | undefined;
    },
  ) {
    this.inbox = new WsInbox(ws);
    this.clock = new PlaybackClock(options.timing, options.anchorMs, options.clock);
    ws.on('close', () => this.stopped.abort());
    this.faults = options.faults ?? NO_FAULTS;
    this.faultEnd = injectedEnding(ws, this.faults);
    this.pending = new PendingTurns(plan.turns, options.peerRequest);
  }

  async run(): Promise<ConversationResult> {
    if (this.faultDue()) return this.result();
    await this.play(this.plan.preamble);
    let pending: LiveFrame | undefined;
    while (!this.pending.done) {
      // Until a recorded frame is matched: a frame the protocol answers as a miss is followed by the next.
      if (this.faulted) return this.result();
      const first = this.pending.next()!;
      pending ??= await this.nextFor(first.client);
      if (!pending || this.faulted) return this.result();
      if (isControl(first.client.channel) && !isControl(pending.channel)) {
        // The recorded client pinged here, the live one did not: skip that exchange of pings.
        this.pending.pass(first);
        await this.play(first.replies.filter((m) => m.channel !== 'pong'));
        continue;
      }
      const live = pending;
      pending = undefined;
      const found = this.pending.match(() => (live.channel === 'text' ? parseJsonBody(live.data) : undefined), (recorded) => this.correlator.differences(recorded, live));
      if (!('turn' in found)) {
        const miss = { frame: live, expected: found.expected?.client ?? first.client, differences: found.differences };
        if (await this.answer(miss)) continue;
        return this.fail(miss);
      }
      this.correlator.learn(found.turn.client, live);
      this.clock.reanchor(found.turn.client.tOffsetMs);
      await this.play(found.turn.replies, echoOf(found.turn, live));
    }
    return this.end(pending);
  }

  /** The recorded ending, once every turn has been played. */
  private async end(pending: LiveFrame | undefined): Promise<ConversationResult> {
    if (this.faulted) return this.result();
    const ending = this.plan.ending;
    if (ending.by === 'server' || ending.by === 'server-reset') {
      await this.clock.wait(ending.at, this.stopped.signal);
      if (ending.by === 'server-reset') this.ws.terminate();
      // As the recorder passed closes on: 1005 as a close without code, a code ws refuses as a plain close.
      else forwardClose(this.ws, ending.code, Buffer.from(ending.reason));
      return this.result();
    }
    // The client ends it. Until then any data frame it sends is one the recording never saw.
    for (;;) {
      const live = pending ?? (await this.nextFor(undefined));
      pending = undefined;
      if (!live || this.faulted) return this.result();
      if (isControl(live.channel)) continue;
      const miss = { frame: live, expected: undefined, differences: ['frame'] };
      if (!(await this.answer(miss))) return this.fail(miss);
    }
  }

  /** Sends the protocol's answer to a miss, if it has one; false when it has none (the connection is then closed). */
  private async answer(miss: FrameMiss): Promise<boolean> {
    const answer = this.options.answerMiss?.(miss);
    if (answer === undefined || this.ws.readyState !== WebSocket.OPEN) return false;
    if (this.sent > 0 && this.faults.gapMs > 0) await this.clock.hold(this.faults.gapMs, this.stopped.signal);
    if (this.ws.readyState !== WebSocket.OPEN) return true;
    await new Promise<void>((resolve) => this.ws.send(answer, () => resolve()));
    this.sent++;
    this.faultDue();
    return true;
  }

  /**
   * The next live frame worth comparing with `expected`: a ping or pong of a kind the recording
   * does not expect here is answered or dropped on the way.
   */
  private async nextFor(expected: ScriptMessage | undefined): Promise<LiveFrame | undefined> {
    for (;;) {
      const frame = await this.inbox.next();
      if (!frame || !isControl(frame.channel) || frame.channel === expected?.channel) return frame;
      if (frame.channel === 'ping' && this.ws.readyState === WebSocket.OPEN) this.ws.pong(frame.data);
    }
  }

  /** Sends recorded server frames at their recorded pace; `echo` swaps a recorded ping payload in a pong for the live one. */
  private async play(messages: readonly ScriptMessage[], echo?: { recorded: Buffer; live: Buffer }): Promise<void> {
    for (const message of messages) {
      if (this.sent > 0 && this.faults.gapMs > 0) await this.clock.hold(this.faults.gapMs, this.stopped.signal);
      await this.clock.wait(message.tOffsetMs, this.stopped.signal);
      if (this.ws.readyState !== WebSocket.OPEN) return;
      const drained = this.send(message, echo);
      if (message.channel === 'text') this.pending.written(message);
      this.sent++;
      if (this.faultEnd && this.sent >= this.faultEnd.after) {
        // A reset discards what is not yet written: the frames before it go out first.
        await drained;
        this.faultDue();
        return;
      }
      if (this.ws.bufferedAmount > HIGH_WATER_BYTES) await drained;
    }
  }

  /** Ends the connection as the injected fault says once its frames are sent; true when it has ended so. */
  private faultDue(): boolean {
    if (this.faulted) return true;
    if (!this.faultEnd || this.sent < this.faultEnd.after) return false;
    this.faulted = true;
    if (this.ws.readyState === WebSocket.OPEN) this.faultEnd.end();
    return true;
  }

  private send(message: ScriptMessage, echo: { recorded: Buffer; live: Buffer } | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = () => resolve();
      if (message.channel === 'ping') this.ws.ping(message.raw, undefined, done);
      else if (message.channel === 'pong') this.ws.pong(echo && message.raw.equals(echo.recorded) ? echo.live : message.raw, undefined, done);
      else this.ws.send(this.correlator.substitute(message), { binary: message.channel === 'binary' }, done);
    });
  }

  private fail(miss: FrameMiss): ConversationResult {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.close(CLOSE_POLICY_VIOLATION, frameMissReason(miss.expected, miss.differences, describeFrame(miss.frame).body));
    return { ...this.result(), miss };
  }

  private result(): ConversationResult {
    return { sent: this.sent };
  }
}

/** The injected ending of a connection: a close or a cut, whichever comes after fewer frames (a close on a tie). */
function injectedEnding(ws: WebSocket, faults: ChosenFaults): { after: number; end: () => void } | undefined {
  const { close, cut } = faults;
  if (close && (!cut || close.after <= cut.after)) {
    return { after: close.after, end: () => ws.close(close.code, truncateUtf8(faultNotice(close), MAX_CLOSE_REASON_BYTES)) };
  }
  if (!cut) return undefined;
  if (cut.how === 'reset') return { after: cut.after, end: () => ws.terminate() };
  return { after: cut.after, end: () => ws.close(CLOSE_NORMAL, truncateUtf8(faultNotice(cut), MAX_CLOSE_REASON_BYTES)) };
}

/** A pong answering the client's ping carries the ping's payload: the live one, not the recorded one. */
function echoOf(turn: WsTurn, live: LiveFrame): { recorded: Buffer; live: Buffer } | undefined {
  return turn.client.channel === 'ping' ? { recorded: turn.client.raw, live: live.data } : undefined;
}
