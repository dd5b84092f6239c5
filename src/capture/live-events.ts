import type { Finding } from '../core/finding.js';
import type { VerdictStatus } from '../core/verdict.js';

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
      durationMs: number;
      tOffsetMs: number;
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
