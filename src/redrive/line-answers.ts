import type { Readable } from 'node:stream';

/**
 * Counts the LF-ended lines a line agent (stdio, the NDJSON socket) has sent so far, so that a
 * redrive writes each recorded client line once as many answers have come as had come before it in
 * the recording.
 */
export class LineAnswers {
  private lines = 0;
  private ended = false;
  private waiter: (() => void) | undefined;
  /** What came, line by line (the text of each complete line), for the ids it mints. */
  readonly received: string[] = [];
  private pending = '';

  constructor(from: Readable) {
    from.on('data', (chunk: Buffer) => {
      this.pending += chunk.toString('utf8');
      for (let at = this.pending.indexOf('\n'); at >= 0; at = this.pending.indexOf('\n')) {
        this.received.push(this.pending.slice(0, at));
        this.pending = this.pending.slice(at + 1);
        this.lines++;
      }
      this.wake();
    });
  }

  /** No more answers will come (the agent exited, the socket ended): every wait ends now. */
  end(): void {
    this.ended = true;
    this.wake();
  }

  get hasEnded(): boolean {
    return this.ended;
  }

  /** Resolves once `n` lines have come, the other side has ended, or `waitMs` is over. */
  wait(n: number, waitMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => finish(), waitMs);
      timer.unref();
      const finish = () => {
        clearTimeout(timer);
        this.waiter = undefined;
        resolve();
      };
      const check = () => {
        if (this.lines >= n || this.ended) finish();
        else this.waiter = check;
      };
      check();
    });
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }
}
