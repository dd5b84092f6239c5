/**
 * A replay Clock that stands still until the test moves it, and the driver that moves it. Pacing is
 * then checked against the schedule a player computes, never against the wall clock of a busy
 * machine: the player sleeps on this clock, the test sees each deadline it asked for and wakes it.
 */
import type { Clock } from '../../src/replay/clock.js';
import { within } from './waits.js';

interface Sleeper {
  at: number;
  wake(): void;
}

export class ManualClock implements Clock {
  private current = 0;
  private readonly sleepers: Sleeper[] = [];
  private watchers: Array<() => void> = [];
  /** Every deadline a sleep asked for, in the order asked. */
  readonly deadlines: number[] = [];

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const sleeper: Sleeper = {
        at: this.current + ms,
        wake: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.sleepers.splice(this.sleepers.indexOf(sleeper), 1);
        sleeper.wake();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.sleepers.push(sleeper);
      this.deadlines.push(sleeper.at);
      for (const watcher of this.watchers.splice(0)) watcher();
    });
  }

  /** The earliest deadline anyone sleeps until; undefined when nobody sleeps. */
  nextDeadline(): number | undefined {
    return this.sleepers.length === 0 ? undefined : Math.min(...this.sleepers.map((s) => s.at));
  }

  /** Resolves with the earliest deadline as soon as anyone sleeps (at once when someone already does). */
  sleeping(): Promise<number> {
    return new Promise((resolve) => {
      const check = () => {
        const next = this.nextDeadline();
        if (next === undefined) this.watchers.push(check);
        else resolve(next);
      };
      check();
    });
  }

  /** Moves time forward to `at` and wakes every sleeper due by then, earliest first. */
  advanceTo(at: number): void {
    if (at < this.current) throw new Error(`the clock cannot go back from ${this.current} to ${at}`);
    this.current = at;
    const due = this.sleepers.filter((s) => s.at <= at).sort((a, b) => a.at - b.at);
    for (const sleeper of due) this.sleepers.splice(this.sleepers.indexOf(sleeper), 1);
    for (const sleeper of due) sleeper.wake();
  }
}

/**
 * Moves `clock` from deadline to deadline until `done` settles. Before each step it waits for
 * `caughtUp()`: what the player wrote so far has reached the client, so the client can stamp it
 * with the clock time it was written at. Returns the deadlines stepped to.
 */
export async function driveClock(clock: ManualClock, done: Promise<unknown>, caughtUp: () => Promise<void> = async () => undefined): Promise<number[]> {
  const stepped: number[] = [];
  let finished = false;
  const ended = done.then(
    () => void (finished = true),
    () => void (finished = true),
  );
  for (;;) {
    const next = await within(Promise.race([clock.sleeping(), ended.then(() => undefined)]), 'the player to sleep or finish');
    if (finished || next === undefined) return stepped;
    await within(caughtUp(), `the client to catch up at ${clock.now()} ms`);
    clock.advanceTo(next);
    stepped.push(next);
  }
}

/**
 * When each message falls due under a PlaybackClock anchored at clock time `anchorAt` and recorded
 * offset `anchorOffset`, played at `speed`.
 */
export function dueTimes(offsets: readonly number[], anchor: { at: number; offset: number }, speed = 1): number[] {
  return offsets.map((t) => anchor.at + (t - anchor.offset) / speed);
}

/** How many of `due` (in order) a player has written by the time it next sleeps at clock time `now`: it does not sleep for less than 1 ms. */
export function writtenBy(due: readonly number[], now: number): number {
  let n = 0;
  while (n < due.length && due[n] - now < 1) n++;
  return n;
}

/** The deadlines a player starting at clock time `from` sleeps until to write messages due at `due`, when each sleep ends on time. */
export function deadlinesOf(due: readonly number[], from = 0): number[] {
  const deadlines: number[] = [];
  let now = from;
  for (const at of due) {
    if (at - now < 1) continue;
    deadlines.push(at);
    now = at;
  }
  return deadlines;
}

/** Resolves once `check()` holds, re-checking whenever `changed` is signalled. */
export class Progress {
  private waiters: Array<() => void> = [];

  /** Call after anything `until` checks may have changed. */
  changed(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  until(check: () => boolean, what: string): Promise<void> {
    return within(
      new Promise<void>((resolve) => {
        const test = () => (check() ? resolve() : this.waiters.push(test));
        test();
      }),
      what,
    );
  }
}
