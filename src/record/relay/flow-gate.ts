import type { Writable } from 'node:stream';

/**
 * Pauses a source while any reason to wait holds (the client is slow, the recorder is behind) and
 * resumes it when none does. `pipe()` would resume on the client's 'drain' even while the recorder
 * still asked to wait, so capture drives the source itself.
 */
export class FlowGate<Reason extends string> {
  private readonly holds = new Set<Reason>();

  constructor(
    private readonly pause: () => void,
    private readonly resume: () => void,
  ) {}

  /** True when the reason was not already holding (so the caller arranges its release once). */
  hold(reason: Reason): boolean {
    if (this.holds.has(reason)) return false;
    this.holds.add(reason);
    if (this.holds.size === 1) this.pause();
    return true;
  }

  release(reason: Reason): void {
    if (!this.holds.delete(reason)) return;
    if (this.holds.size === 0) this.resume();
  }
}

/**
 * Forwards `chunk` to `to`, holding the gate for 'peer' while `to` is full. The hold ends on 'drain'
 * or on 'close': a reader that went away never drains, and neither does a writable ended while full
 * (a socket whose peer half-closed is ended by Node), so a source held only for 'drain' would stay
 * paused for good, and the peer behind it would never see its writes taken or its connection end.
 */
export function forwardHeld(to: Writable, chunk: Buffer, gate: FlowGate<'peer' | 'recorder'>): void {
  if (to.destroyed || to.write(chunk) || !gate.hold('peer')) return;
  const release = () => {
    to.off('drain', release);
    to.off('close', release);
    gate.release('peer');
  };
  to.on('drain', release);
  to.on('close', release);
}
