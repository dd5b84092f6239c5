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
