import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The time source replay pacing runs on. The system clock reads performance.now() and sleeps on a
 * timer; tests inject a clock they advance by hand, so pacing is checked against the schedule the
 * player computes instead of against the wall clock of a busy machine.
 */
export interface Clock {
  /** Milliseconds on a monotonic scale. */
  now(): number;
  /** Resolves once `ms` have passed on this clock, or as soon as `signal` aborts; never rejects. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const SYSTEM_CLOCK: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) => sleep(ms, undefined, signal ? { signal } : undefined).catch(() => undefined),
};
