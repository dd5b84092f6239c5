import { DEFAULT_MAX_BODY_BYTES, type BodyTap, type ExchangeSink, type RecordingSink, type RecordingTotals } from './recording-sink.js';

const NO_TAP: BodyTap = { push() {}, end() {} };

/**
 * A sink that keeps nothing: the proxy forwards as it does when recording, and no file is written
 * (Polly's `passthrough`). It only counts the exchanges, so a summary can say how many went through.
 */
export class DiscardingSink implements RecordingSink {
  readonly maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
  readonly overloaded = false;
  private exchanges = 0;

  openExchange(): ExchangeSink {
    const id = ++this.exchanges;
    return { id, classify() {}, update() {}, record() {}, tap: () => NO_TAP, end() {} };
  }

  /** Nothing is stored, so no time is kept. */
  now(): number {
    return 0;
  }

  onDrain(): void {}

  totals(): RecordingTotals {
    return { exchanges: this.exchanges, messages: 0, invalid: 0, findings: 0 };
  }

  close(): Promise<RecordingTotals> {
    return Promise.resolve(this.totals());
  }
}
