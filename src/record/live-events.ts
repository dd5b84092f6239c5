import type { Finding } from '../core/finding.js';
import type { VerdictStatus } from '../core/verdict.js';
import { LINE_PREFIX } from '../core/program-name.js';

/** What the recorder tells the live view; the view decides how to print it. */
export type LiveEvent =
  | {
      type: 'exchange-end';
      exchangeId: number;
      transport: string;
      protocol?: string;
      method?: string;
      path?: string;
      status?: number;
      outcome: string;
      messages: number;
      invalid: number;
      unchecked: number;
      /** Why it did not complete (`E_CLIENT_ABORTED`, `E_PROXY_SHUTDOWN` …), when it did not. */
      errorCode?: string;
      /** What went wrong, for an exchange that ended in an error (an upstream that could not be reached …). */
      errorMessage?: string;
      durationMs: number;
      tOffsetMs: number;
      /** False once recording has stopped (a write failed): the exchange was forwarded but is not, or not all, in the file. */
      stored: boolean;
    }
  | {
      type: 'invalid-message';
      exchangeId: number;
      sender: 'client' | 'server';
      label: string;
      status: VerdictStatus;
      findings: Finding[];
      tOffsetMs: number;
    };

export type LiveListener = (event: LiveEvent) => void;

/**
 * Recording stopped while traffic is still forwarded: a write to the recording failed (disk full,
 * I/O error), after which the writer drops every row, or the recording worker itself ended.
 */
export interface RecordingStopped {
  reason: 'write-failed' | 'recorder-exited';
  /** E_STORE_WRITE or E_RECORDER_EXITED. */
  code: string;
  message: string;
  tOffsetMs: number;
}

export type StoppedListener = (event: RecordingStopped) => void;

/** The first failed write, as an event (the writer reports it once, then drops every row). */
export function writeFailed(error: { code: string; message: string }, tOffsetMs: number): RecordingStopped {
  return { reason: 'write-failed', code: error.code, message: error.message, tOffsetMs };
}

/** Tells `onStopped`, or, when nobody listens, says it on stderr: it must never go unsaid. */
export function reportStopped(event: RecordingStopped, onStopped: StoppedListener | undefined): void {
  if (onStopped) onStopped(event);
  else process.stderr.write(`${LINE_PREFIX}${stoppedLine(event)}\n`);
}

export function stoppedLine(event: RecordingStopped): string {
  return `recording stopped, traffic is still forwarded: ${event.message}`;
}
