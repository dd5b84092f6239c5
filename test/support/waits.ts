import { onTestFailed } from 'vitest';

/**
 * Waits for `promise`, the event itself: no deadline of its own, so a loaded CI machine can never
 * turn slowness into a failure. A test that really hangs is ended by vitest's test timeout; if the
 * test fails while this wait is still pending, the report says what it was waiting for.
 */
export function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let pending = true;
  try {
    onTestFailed(() => {
      if (pending) console.error(`the test ended while still waiting for ${what}`);
    });
  } catch {
    // Called from a hook rather than a test: there is no failure report to add to.
  }
  return promise.finally(() => {
    pending = false;
  });
}

/** Something that says when what a check reads may have changed (a child's stdout, a socket). */
export interface Emitter {
  on(event: string, listener: () => void): unknown;
  off(event: string, listener: () => void): unknown;
}

export interface WaitForOptions {
  /** Re-check at once on any of these events (e.g. `[child.stdout, 'data']`), besides polling. */
  wakeOn?: ReadonlyArray<readonly [Emitter, string]>;
  /** How often to re-check state nothing signals (another process's SQLite file); default 5 ms. */
  pollMs?: number;
}

type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/**
 * Resolves with the first truthy value `check` returns: a row appearing, a line printed. Like
 * `within`, it has no deadline of its own, so it cannot fail from load; `check` throws to fail early
 * (e.g. the process it waits on has exited). The poll interval is only how often it looks.
 */
export function waitFor<T>(check: () => T | Promise<T>, what: string, options: WaitForOptions = {}): Promise<Truthy<T>> {
  const { wakeOn = [], pollMs = 5 } = options;
  const looked = async (): Promise<Truthy<T>> => {
    for (;;) {
      const value = await check();
      if (value) return value as Truthy<T>;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          for (const [emitter, event] of wakeOn) emitter.off(event, wake);
          resolve();
        };
        // Only how soon to look again: there is no deadline, so a slow machine makes it wait longer, never fail.
        const timer = setTimeout(wake, pollMs);
        for (const [emitter, event] of wakeOn) emitter.on(event, wake);
      });
    }
  };
  return within(looked(), what);
}
