import { count } from '../core/plural.js';
import { caseClass, caseName, type CaseExchange } from './case-name.js';
import { ciReport, cappedDetails, type CiCase, type CiProblem, type CiReport } from './ci-report.js';

/**
 * What a replay did, whatever it served over (HTTP and WebSocket, stdio, the NDJSON socket), in the
 * terms its report needs; each command's summary is put into these terms where it ends
 * (src/cli/ci-report-flag.ts).
 */
export interface ReplayOutcome {
  /** Whether the replay was strict: only then do misses and unused exchanges fail. */
  strict: boolean;
  /** The recorded exchanges served (repeats are fine). */
  served: Iterable<number>;
  /** Recorded exchanges (or connections) the replay could serve and no client asked for. */
  unused: number[];
  /** Requests, frames or lines that matched nothing, in order. */
  misses: ReplayOutcomeMiss[];
  /** Recorded client lines that never came on a conversation that was served. */
  unusedLines: { exchange?: number; seq: number; text: string }[];
}

export interface ReplayOutcomeMiss {
  /** The sentence the replay printed for it. */
  message: string;
  /** The conversation it came on, when it was one (stdio); else the miss is a case of its own. */
  exchange?: number;
  /** What came in, short: `POST /agent`, `line 3`. */
  request: string;
}

export interface ReplayReportInput {
  command: 'replay' | 'fixture';
  /** The recording, as given. */
  file: string;
  /** Every exchange of the recording, in order: each is a case. */
  exchanges: CaseExchange[];
  outcome: ReplayOutcome;
  properties?: Record<string, string>;
}

/** Longest excerpt of a recorded line a detail quotes. */
const EXCERPT_CHARS = 120;

/**
 * The CI report of a strict replay (or fixture): one suite, the recording; a case per recorded
 * exchange, passed when served, failed when strict and never asked for, skipped when this replay
 * could not serve it; and a case per request that matched nothing (or a failure on its
 * conversation, for a line replay).
 */
export function replayCiReport(input: ReplayReportInput): CiReport {
  const { outcome } = input;
  const served = new Set(outcome.served);
  const unused = new Set(outcome.unused);
  const cases = new Map<number, CiCase>();
  for (const e of input.exchanges) {
    const c: CiCase = { name: caseName(e), classname: caseClass(e), exchange: e.id, failures: [], notes: [] };
    if (unused.has(e.id)) {
      const problem: CiProblem = { kind: 'unused', title: 'unused', message: 'no client asked for this recorded exchange', details: [] };
      if (outcome.strict) c.failures.push(problem);
      else c.skipped = problem.message;
    } else if (!served.has(e.id)) {
      c.skipped = 'this replay does not serve it (another transport, or not asked for)';
    }
    cases.set(e.id, c);
  }
  const extra: CiCase[] = [];
  outcome.misses.forEach((miss, i) => {
    const problem: CiProblem = { kind: 'miss', title: 'miss', message: miss.message, details: [] };
    const home = miss.exchange === undefined ? undefined : cases.get(miss.exchange);
    const c = home ?? { name: `miss ${i + 1}: ${miss.request}`, classname: 'replay', failures: [], notes: [] };
    if (!home) extra.push(c);
    (outcome.strict ? c.failures : c.notes).push(problem);
  });
  const lines = new Map<CiCase, string[]>();
  for (const line of outcome.unusedLines) {
    let c = line.exchange === undefined ? undefined : cases.get(line.exchange);
    if (!c) {
      c = extra.find((x) => x.name === 'unused recorded lines');
      if (!c) extra.push((c = { name: 'unused recorded lines', classname: 'replay', failures: [], notes: [] }));
    }
    lines.set(c, [...(lines.get(c) ?? []), `recorded line ${line.seq}: ${excerpt(line.text)}`]);
  }
  for (const [c, details] of lines) {
    delete c.skipped;
    const problem: CiProblem = { kind: 'unused', title: 'unused lines', message: `${count(details.length, 'recorded client line')} never came`, details: cappedDetails(details) };
    (outcome.strict ? c.failures : c.notes).push(problem);
  }
  const properties = { strict: String(outcome.strict), ...input.properties };
  return ciReport(input.command, [{ name: input.file, file: input.file, properties, cases: [...cases.values(), ...extra] }]);
}

function excerpt(text: string): string {
  const line = text.replace(/\s*\n\s*/g, ' ').trim();
  return line.length > EXCERPT_CHARS ? `${line.slice(0, EXCERPT_CHARS - 1)}…` : line;
}
