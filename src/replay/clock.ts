/**
 * The time source replay pacing runs on. The system clock reads the process's monotonic clock and
 * sleeps on a timer; tests inject a clock they advance by hand, so pacing is checked against the
 * schedule the player computes instead of against the wall clock of a busy machine.
 */
export interface Clock {
  /** Milliseconds on a monotonic scale. */
  now(): number;
  /** Resolves once `ms` have passed on this clock, or as soon as `signal` aborts; never rejects. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

// process.hrtime() and a plain timer rather than performance.now() and node:timers/promises: the
// global `performance` loads node:perf_hooks and its histograms at a replay's first paced answer, and
// node:timers/promises loads with the replay; the same monotonic clock, read only as differences.
export const SYSTEM_CLOCK: Clock = {
  now: () => {
    const [seconds, nanoseconds] = process.hrtime();
    return seconds * 1e3 + nanoseconds / 1e6;
  },
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
};
