import type { ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { Clock } from './clock.js';
import type { Substitution } from '../match/correlation.js';
import { substituteMessage } from './match/frame-substitution.js';
import type { ScriptMessage } from './replay-script.js';
import { PlaybackClock, type Timing } from './timing.js';

/** Most bytes sent in one write when several frames are due at once (`--timing none`, or recorded together). */
const BATCH_BYTES = 32 * 1024;

/**
 * Holds stream messages back until the client has sent what the recording received before them (an
 * HTTP session's later requests: the answer to a server request, a legacy transport's POSTs).
 */
export interface MessageGate {
  /** May what the recording sent at `tOffsetMs` (a message, the stream's end) be sent now? */
  ready(tOffsetMs: number): boolean;
  /** Resolves once it may (or `signal` aborts), to the recorded moment of the last client message it waited for: the pace goes on from there. */
  wait(tOffsetMs: number, signal: AbortSignal): Promise<number>;
}

/**
 * Writes recorded stream messages (SSE events, protobuf frames) to a response at the recorded pace,
 * flushing each as soon as it is due. Frames due at the same moment share one write (as they
 * shared one when the upstream sent them: the recording stamps a chunk's frames with its arrival),
 * so `--timing none` is not paced by per-write overhead. `gapMs` (a `gap` fault) adds that long
 * before every message after the first, on top of the recorded pace, so each then goes on its own;
 * `stall` (a `latency` fault with `after`) holds that long before message `after` alone.
 * Stops early when the client goes away or `signal` aborts; resolves to the number of messages written.
 */
export async function playMessages(
  res: ServerResponse,
  messages: readonly ScriptMessage[],
  options: { timing: Timing; clock: Clock; anchorMs: number; substitution: Substitution; signal: AbortSignal; gapMs?: number; stall?: { after: number; ms: number }; gate?: MessageGate },
): Promise<number> {
  const clock = new PlaybackClock(options.timing, options.anchorMs, options.clock);
  const gapMs = options.gapMs ?? 0;
  let written = 0;
  const gate = options.gate;
  while (written < messages.length) {
    if (gate && !gate.ready(messages[written].tOffsetMs)) {
      // The recorded gap runs from the client message it waited for.
      clock.reanchor(await gate.wait(messages[written].tOffsetMs, options.signal));
      if (options.signal.aborted || res.destroyed) break;
    }
    await clock.wait(messages[written].tOffsetMs, options.signal);
    const hold = (gapMs > 0 && written > 0 ? gapMs : 0) + (written === options.stall?.after ? options.stall.ms : 0);
    if (hold > 0) {
      await options.clock.sleep(hold, options.signal);
      // The schedule moves on by the hold: later messages keep their recorded distance from this one.
      clock.reanchor(messages[written].tOffsetMs);
    }
    if (options.signal.aborted || res.destroyed) break;
    const due: Buffer[] = [];
    let bytes = 0;
    do {
      const frame = substituteMessage(messages[written++], options.substitution);
      due.push(frame);
      bytes += frame.length;
    } while (gapMs === 0 && written < messages.length && written !== options.stall?.after && bytes < BATCH_BYTES && clock.delayBefore(messages[written].tOffsetMs) < 1 && (!gate || gate.ready(messages[written].tOffsetMs)));
    const chunk = due.length === 1 ? due[0] : Buffer.concat(due);
    // The last write is awaited until it has reached the socket: the caller may cut the
    // connection next (a recorded reset), which would drop bytes still queued.
    if (written === messages.length) await writeThrough(res, chunk);
    else res.write(chunk);
    if (res.writableNeedDrain) await drained(res, options.signal);
  }
  return written;
}

function writeThrough(res: ServerResponse, chunk: Buffer): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('close', done);
      resolve();
    };
    res.once('close', done);
    res.write(chunk, done);
  });
}

/** Resolves on 'drain', 'close' or abort, and leaves no listener behind. */
async function drained(res: ServerResponse, signal: AbortSignal): Promise<void> {
  const settled = new AbortController();
  const both = AbortSignal.any([signal, settled.signal]);
  try {
    await Promise.race([once(res, 'drain', { signal: both }), once(res, 'close', { signal: both })]);
  } catch {
    // Aborted: the caller checks its signal.
  } finally {
    settled.abort();
  }
}
