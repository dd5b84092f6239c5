import { UsageError } from '../core/errors.js';
import { SYSTEM_CLOCK, type Clock } from './clock.js';

/**
 * How fast recorded gaps are reproduced. `recorded`: as recorded (speed 1). `<factor>x`: a playback
 * speed, so `2x` halves every gap and `0.5x` doubles it. `none`: no waiting at all, as fast as the
 * client reads.
 */
export type Timing = { mode: 'recorded'; speed: number } | { mode: 'none' };

export const RECORDED_TIMING: Timing = { mode: 'recorded', speed: 1 };

/** Parses `--timing recorded|none|<factor>x`. */
export function parseTiming(text: string | undefined): Timing {
  if (text === undefined || text === 'recorded') return RECORDED_TIMING;
  if (text === 'none') return { mode: 'none' };
  const match = /^(\d+(?:\.\d+)?|\.\d+)x$/.exec(text);
  const speed = match ? Number(match[1]) : NaN;
  if (!(speed > 0) || !Number.isFinite(speed)) {
    throw new UsageError(`--timing '${text}' is not a timing: expected recorded, none, or a speed such as 2x or 0.5x`);
  }
  return { mode: 'recorded', speed };
}

export function formatTiming(timing: Timing): string {
  if (timing.mode === 'none') return 'none';
  return timing.speed === 1 ? 'recorded' : `${timing.speed}x`;
}

/**
 * Paces one stream or connection against its recording. Each message is due at
 * `anchor time + (its offset - anchor offset) / speed` on the clock: deadlines, not summed sleeps,
 * so timer lateness never accumulates over a long stream.
 */
export class PlaybackClock {
  private anchorOffsetMs: number;
  private anchorClockMs: number;

  /** `anchorOffsetMs`: the recorded moment that corresponds to now (e.g. when the request had arrived). */
  constructor(
    private readonly timing: Timing,
    anchorOffsetMs: number,
    private readonly clock: Clock = SYSTEM_CLOCK,
  ) {
    this.anchorOffsetMs = anchorOffsetMs;
    this.anchorClockMs = clock.now();
  }

  /** Restarts the schedule: the recorded `tOffsetMs` is now (a WebSocket player calls this when the awaited client frame arrives). */
  reanchor(tOffsetMs: number): void {
    this.anchorOffsetMs = tOffsetMs;
    this.anchorClockMs = this.clock.now();
  }

  /**
   * Waits `ms` more than the recording did (an injected latency or gap), whatever the timing, and
   * moves the rest of the schedule as much later, so the recorded gaps that follow stay as they were.
   */
  async hold(ms: number, signal?: AbortSignal): Promise<void> {
    if (ms <= 0) return;
    await this.clock.sleep(ms, signal);
    this.anchorClockMs += ms;
  }

  /** Milliseconds until the message recorded at `tOffsetMs` is due; 0 when it is due already or timing is none. */
  delayBefore(tOffsetMs: number): number {
    if (this.timing.mode === 'none') return 0;
    const due = this.anchorClockMs + (tOffsetMs - this.anchorOffsetMs) / this.timing.speed;
    return Math.max(0, due - this.clock.now());
  }

  /** Resolves when the message recorded at `tOffsetMs` is due. */
  async wait(tOffsetMs: number, signal?: AbortSignal): Promise<void> {
    const delay = this.delayBefore(tOffsetMs);
    if (delay >= 1) await this.clock.sleep(delay, signal);
  }
}
