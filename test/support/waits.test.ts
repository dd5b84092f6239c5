/** The shared waits: they end on the event, and only a check that throws fails them. */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { waitFor, within } from './waits.js';

describe('waitFor', () => {
  it('resolves with the first truthy value the check returns', async () => {
    let calls = 0;
    expect(await waitFor(() => (++calls >= 3 ? { calls } : undefined), 'the third look', { pollMs: 0 })).toEqual({ calls: 3 });
  });

  it('looks again as soon as a wake event fires, not only when it polls', async () => {
    const emitter = new EventEmitter();
    let ready = false;
    // A poll interval no test waits out: only the event can end this wait.
    const waiting = waitFor(() => ready, 'the event', { wakeOn: [[emitter, 'changed']], pollMs: 2 ** 31 - 1 });
    await new Promise((resolve) => setImmediate(resolve));
    ready = true;
    emitter.emit('changed');
    expect(await waiting).toBe(true);
    expect(emitter.listenerCount('changed')).toBe(0);
  });

  it('takes an async check, and fails with what the check throws', async () => {
    expect(await waitFor(async () => 'found', 'an async look')).toBe('found');
    await expect(waitFor(() => { throw new Error('the process exited first'); }, 'a line')).rejects.toThrow('the process exited first');
  });
});

describe('within', () => {
  it('passes the promise through, value or rejection', async () => {
    expect(await within(Promise.resolve(42), 'a value')).toBe(42);
    await expect(within(Promise.reject(new Error('no')), 'a failure')).rejects.toThrow('no');
  });
});
