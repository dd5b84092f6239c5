import { performance } from 'node:perf_hooks';

/** Monotonic milliseconds since the recording started; wall-clock changes never reorder messages. */
export class RecordingClock {
  readonly startedAt = new Date();
  private readonly origin = performance.now();

  now(): number {
    return Math.round((performance.now() - this.origin) * 1000) / 1000;
  }
}
