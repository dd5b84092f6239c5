/** Stops a write that has been scheduled and not run yet. */
export type CancelWrite = () => void;

/**
 * When a RecordingWriter writes its queue in the background: `later`, once the flush interval has
 * passed since the first queued row; `soon`, on the next turn of the event loop once a batch is
 * full. Tests pass their own to see what the batching policy scheduled and to run it when they
 * choose, instead of waiting on timers.
 */
export interface FlushSchedule {
  later(ms: number, write: () => void): CancelWrite;
  soon(write: () => void): CancelWrite;
}

export const EVENT_LOOP_SCHEDULE: FlushSchedule = {
  later(ms, write) {
    // Unref'ed: a pending flush never keeps the process alive; close() writes what is queued.
    const timer = setTimeout(write, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
  soon(write) {
    const immediate = setImmediate(write);
    return () => clearImmediate(immediate);
  },
};
