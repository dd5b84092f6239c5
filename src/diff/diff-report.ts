import type { Finding } from '../core/finding.js';
import type { VerdictStatus } from '../core/verdict.js';
import type { ExchangeFields, StoredMessage } from '../store/schema.js';

/** The stable `proxy diff --format json` document; see docs/diff-format.md. */
export interface DiffReport {
  format: 'agent-proxy/diff';
  version: 1;
  a: SideInfo;
  b: SideInfo;
  /**
   * `verdicts`: `recorded` when both sides were judged by this version with the schemas loaded now
   * and are compared as stored; `judged-now` when both were judged again with those first.
   */
  options: { semantic: boolean; ignore: string[]; verdicts: 'recorded' | 'judged-now' };
  /** True when nothing differs after normalization (exit code 0). */
  equal: boolean;
  summary: DiffSummary;
  /** The exchanges that differ, in aligned order; equal exchanges are left out. */
  exchanges: ExchangeDiff[];
}

export interface SideInfo {
  file: string;
  exchanges: number;
  messages: number;
}

export interface DiffSummary {
  exchanges: { equal: number; changed: number; added: number; removed: number };
  messages: { changed: number; added: number; removed: number };
  /** Messages valid (or unchecked) in A and invalid in B, new error rules, and invalid messages only in B. */
  regressions: number;
  /** The reverse: invalid in A, no longer in B. */
  fixes: number;
}

/** Which exchange: the columns that name it, as the recording holds them. */
export type ExchangeRef = Pick<ExchangeFields, 'id' | 'transport' | 'protocol' | 'method' | 'path' | 'status'>;

export type Change = 'changed' | 'added' | 'removed';

export interface ExchangeDiff {
  change: Change;
  /** The exchange in A (null when added in B). */
  a: ExchangeRef | null;
  /** The exchange in B (null when removed from A). */
  b: ExchangeRef | null;
  /** Exchange-level differences: method, path, query, status, subprotocol, outcome, close/exit codes, headers. */
  fields: ValueChange[];
  /** Message differences, in aligned order; equal messages are left out. */
  messages: MessageDiff[];
}

export interface MessageRef extends Pick<StoredMessage, 'seq' | 'sender'> {
  /** Event type, frame kind, JSON-RPC method …, or `agui-run` / `pi-session` for a `--semantic` result. */
  label: string;
  status: VerdictStatus;
}

export interface MessageDiff {
  change: Change;
  a: MessageRef | null;
  b: MessageRef | null;
  /** Where the normalized values differ (changed messages only). */
  differences: ValueChange[];
  /** Present when the verdict changed. */
  verdict?: VerdictChange;
  /** The nearest equal message before this one, for context (A's numbering), or null. */
  before: MessageRef | null;
  /** The nearest equal message after this one, or null. */
  after: MessageRef | null;
}

/** One difference: a JSON pointer into the normalized value (or an exchange field name), and both sides. A missing side is absent. */
export interface ValueChange {
  pointer: string;
  /** Under `--semantic`, what the protocol calls that place of its result (`tool "echo": inputSchema /properties/message/type`). */
  name?: string;
  a?: unknown;
  b?: unknown;
}

export interface VerdictChange {
  /** regression: valid/unchecked → invalid or new error rules; fixed: the reverse; changed: anything else (e.g. valid → unchecked). */
  change: 'regression' | 'fixed' | 'changed';
  a: VerdictStatus | null;
  b: VerdictStatus | null;
  /** For a regression, B's new error findings; for a fix, A's error findings that went away. */
  findings: Finding[];
}
