import { setTimeout as delay } from 'node:timers/promises';

/** Recording this far behind, with traffic still flowing, is a burst. */
export const BURST_BACKLOG_BYTES = 256 * 1024;
/** Traffic must pause this long before the recording worker resumes during a spooled burst. */
const QUIET_MS = 20;
/** How often a waiting worker looks again. */
const POLL_MS = 5;

/**
 * Says "a burst is being forwarded right now" from the capture thread to the recording worker,
 * through one shared Int32. It is raised only while recording is already BURST_BACKLOG_BYTES behind
 * (past a megabyte, batches go to the spool): then the worker stops competing with forwarding for the CPU (a lower nice
 * value does not stop it sharing a core's caches or hyperthread) and records once the traffic
 * pauses for QUIET_MS. When recording keeps up, it is never raised and rows land within a batch.
 */
export class BurstSignal {
  private readonly cell: Int32Array;
  private lastActivity = 0;
  private timer?: NodeJS.Timeout;
  private quietListener?: () => void;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(4)) {
    this.cell = new Int32Array(buffer);
  }

  /** Capture side: traffic went by just now. */
  activity(): void {
    this.lastActivity = performance.now();
    if (Atomics.load(this.cell, 0) === 0) Atomics.store(this.cell, 0, 1);
    this.timer ??= setTimeout(() => this.checkQuiet(), QUIET_MS);
  }

  /** Capture side: `listener` runs each time a burst ends because the traffic paused (not on clear()). */
  onQuiet(listener: () => void): void {
    this.quietListener = listener;
  }

  /** Capture side: the burst is over, or recording must not wait any longer. */
  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    Atomics.store(this.cell, 0, 0);
  }

  /** Worker side: a burst is in flow now. */
  get active(): boolean {
    return Atomics.load(this.cell, 0) === 1;
  }

  /** Worker side: resolves once no burst is in flow. */
  async quiet(): Promise<void> {
    while (Atomics.load(this.cell, 0) === 1) await delay(POLL_MS);
  }

  private checkQuiet(): void {
    this.timer = undefined;
    const idle = performance.now() - this.lastActivity;
    if (idle >= QUIET_MS) {
      Atomics.store(this.cell, 0, 0);
      this.quietListener?.();
    } else this.timer = setTimeout(() => this.checkQuiet(), QUIET_MS - idle);
  }
}
