import { PlaybackClock, type Timing } from '../replay/timing.js';
import type { Clock } from '../replay/clock.js';
import type { ScriptExchange } from '../replay/replay-script.js';

/**
 * How a redrive paces the client messages of a connection: as fast as the agent answers (`none`,
 * the default), or each at its recorded offset from the start of its connection (`--timing
 * recorded`, or `<factor>x` to play it that much faster). Answers a message waited for in the
 * recording are waited for either way.
 */
export interface Pacing {
  timing: Timing;
  /** The time source (tests inject one they move by hand); default the system clock. A legacy MCP session's stream waits for its events on it too. */
  clock?: Clock;
}

export const AS_FAST_AS_ANSWERED: Pacing = { timing: { mode: 'none' } };

/** The schedule of one connection, opened now: a client message recorded at `t` is due at now + (t − the connection's start) / speed. */
export function connectionSchedule(pacing: Pacing, exchange: ScriptExchange): PlaybackClock {
  return new PlaybackClock(pacing.timing, exchange.startedMs, pacing.clock);
}
