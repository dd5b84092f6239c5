import type { FaultAction, FaultKind, FaultSpec } from './fault-spec.js';
import { PathGlob } from './path-glob.js';

/** What a fault can be asked for: an HTTP request, a WebSocket upgrade, or a line session (stdio, NDJSON socket). */
export type FaultTransport = 'http' | 'ws' | 'stdio' | 'ndjson';

/** The request a replay is about to answer, as far as faults look at it. */
export interface FaultTarget {
  transport: FaultTransport;
  /** `GET` for a WebSocket upgrade; empty for a line session. */
  method: string;
  /** Empty for a line session. */
  path: string;
}

/** Which transports each fault can act on; a spec whose action a transport lacks never selects it. */
const ACTS_ON: Record<FaultKind, ReadonlySet<FaultTransport>> = {
  latency: new Set(['http', 'ws', 'stdio', 'ndjson']),
  gap: new Set(['http', 'ws', 'stdio', 'ndjson']),
  status: new Set(['http', 'ws']),
  error: new Set(['http']),
  cut: new Set(['http', 'ws', 'ndjson']),
  close: new Set(['ws']),
  exit: new Set(['stdio']),
};

/**
 * The faults chosen for one answer, merged: the answer applies each field it can. `specs` are the
 * texts of the specs that chose it, for the served line and --json.
 */
export interface ChosenFaults {
  specs: string[];
  /** Before the first byte. */
  latencyMs: number;
  /** Before every message after the first. */
  gapMs: number;
  /** On an HTTP stream, a hold before message `after` (0-based), the head and the messages before it sent at once. */
  stall?: { after: number; ms: number };
  status?: number;
  /** The text of the spec that set `status`, named in the error answer. */
  statusSpec?: string;
  /** How long the status answer tells the client to wait before it retries (`retry-after`). */
  retryAfterMs?: number;
  /** Whether the status answer tells the client to retry (`x-should-retry`), which the official SDKs obey over the status. */
  shouldRetry?: boolean;
  /** An error event that ends a stream (it excludes `cut`: the first given of the two wins), and the text of its spec. */
  error?: Extract<FaultAction, { kind: 'error' }> & { spec: string };
  cut?: Extract<FaultAction, { kind: 'cut' }>;
  close?: Extract<FaultAction, { kind: 'close' }>;
  exit?: Extract<FaultAction, { kind: 'exit' }>;
}

/** One spec's account, for the end-of-replay report: how many requests it selected. */
export interface FaultTally {
  spec: string;
  injected: number;
}

export const NO_FAULTS: ChosenFaults = Object.freeze({ specs: [], latencyMs: 0, gapMs: 0 }) as ChosenFaults;

/**
 * The `--fault` specs of one replay and what they have selected so far. Deterministic: each spec
 * counts the requests its filters select in the order they arrive, and `nth` picks among those.
 * When two specs set the same field (two statuses), the first given wins; latencies and gaps add up.
 */
export class FaultPlan {
  private readonly seen: number[];
  private readonly injected: number[];

  constructor(private readonly specs: readonly FaultSpec[]) {
    this.seen = specs.map(() => 0);
    this.injected = specs.map(() => 0);
  }

  get empty(): boolean {
    return this.specs.length === 0;
  }

  /** Counts `target` for every spec that selects it and returns the faults to inject into its answer. */
  choose(target: FaultTarget): ChosenFaults {
    if (this.specs.length === 0) return NO_FAULTS;
    let chosen: ChosenFaults | undefined;
    this.specs.forEach((spec, index) => {
      if (!selects(spec, target)) return;
      const nth = ++this.seen[index];
      if (spec.nth && (nth < spec.nth.from || (spec.nth.to !== undefined && nth > spec.nth.to))) return;
      this.injected[index]++;
      chosen ??= { specs: [], latencyMs: 0, gapMs: 0 };
      merge(chosen, spec);
    });
    return chosen ?? NO_FAULTS;
  }

  /** Every spec with how often it was injected, in the order given. */
  tally(): FaultTally[] {
    return this.specs.map((spec, index) => ({ spec: spec.text, injected: this.injected[index] }));
  }

  /** Specs that were never injected: reported when the replay ends, as a likely typo in a path or count. */
  unmatched(): string[] {
    return this.tally().filter((t) => t.injected === 0).map((t) => t.spec);
  }
}

function selects(spec: FaultSpec, target: FaultTarget): boolean {
  if (!ACTS_ON[spec.action.kind].has(target.transport)) return false;
  // A hold after N events is an HTTP stream's (a slow first token); the other transports hold their first byte only.
  if (spec.action.kind === 'latency' && spec.action.after !== undefined && target.transport !== 'http') return false;
  if (spec.method !== undefined && spec.method !== target.method) return false;
  if (spec.path !== undefined && !pathPattern(spec.path).test(target.path)) return false;
  return true;
}

function merge(chosen: ChosenFaults, spec: FaultSpec): void {
  chosen.specs.push(spec.text);
  const action = spec.action;
  switch (action.kind) {
    case 'latency':
      if (action.after === undefined) chosen.latencyMs += action.ms;
      else chosen.stall ??= { after: action.after, ms: action.ms };
      break;
    case 'gap':
      chosen.gapMs += action.ms;
      break;
    case 'status':
      if (chosen.status === undefined) {
        chosen.status = action.status;
        chosen.statusSpec = spec.text;
        if (action.retryAfterMs !== undefined) chosen.retryAfterMs = action.retryAfterMs;
        if (action.shouldRetry !== undefined) chosen.shouldRetry = action.shouldRetry;
      }
      break;
    case 'error':
      if (chosen.cut === undefined) chosen.error ??= { ...action, spec: spec.text };
      break;
    case 'cut':
      if (chosen.error === undefined) chosen.cut ??= action;
      break;
    case 'close':
      chosen.close ??= action;
      break;
    case 'exit':
      chosen.exit ??= action;
      break;
  }
}

const globs = new Map<string, PathGlob>();

function pathPattern(pattern: string): PathGlob {
  let glob = globs.get(pattern);
  if (!glob) {
    glob = new PathGlob(pattern);
    globs.set(pattern, glob);
  }
  return glob;
}
