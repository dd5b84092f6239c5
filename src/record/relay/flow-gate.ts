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
