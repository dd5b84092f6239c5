/**
 * Monotonic milliseconds since the recording started; wall-clock changes never reorder messages.
 * A worker thread builds its clock from the capture thread's `origin`, so both give the same offsets.
 * It reads the global `performance`: importing node:perf_hooks would load its histograms and timers
 * too, ~2 ms of every recorder's start.
 */
export class RecordingClock {
  readonly startedAt: Date;
  /** The start, as performance.timeOrigin + performance.now(): comparable across threads. */
  readonly origin: number;

  constructor(origin?: number) {
    this.origin = origin ?? performance.timeOrigin + performance.now();
    this.startedAt = new Date(Math.round(this.origin));
  }

  now(): number {
    return Math.round((performance.timeOrigin + performance.now() - this.origin) * 1000) / 1000;
  }
}
