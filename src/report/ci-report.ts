/**
 * The one report every CI-facing command makes (`diff`, `findings`, `replay --strict`, `fixture
 * --strict`, and `redrive` once it exists), whatever format it is then written in (JUnit XML,
 * GitHub workflow commands and job summary, Markdown, JSON). A suite is one recording; a case is one
 * exchange of it (or one request that matched nothing); a failure is what makes the command exit 1.
 * The JSON form is this document as it is: docs/ci-reports.md describes it, and its names are stable.
 */
export interface CiReport {
  format: 'agent-proxy/ci-report';
  version: 1;
  /** The command that made it. */
  command: CiCommand;
  /** True when nothing failed: the command exits 0 (as far as this report is concerned). */
  ok: boolean;
  totals: CiTotals;
  suites: CiSuite[];
}

export type CiCommand = 'diff' | 'findings' | 'replay' | 'fixture' | 'redrive';

export interface CiTotals {
  suites: number;
  cases: number;
  /** Cases with at least one failure. */
  failed: number;
  /** Cases neither run nor failed: a recorded exchange a replay could not serve or was not asked to. */
  skipped: number;
  /** Failures, over every case. */
  failures: number;
}

/** One recording, as the command was given it. */
export interface CiSuite {
  name: string;
  /** The recording file, as given (also where GitHub annotations point). */
  file: string;
  /** What else names the run: `baseline` (diff's first recording), `failOn`, `strict` …; strings only. */
  properties: Record<string, string>;
  cases: CiCase[];
}

/** One exchange (named by method and route, or as a conversation), or one request that matched nothing. */
export interface CiCase {
  /** `POST /agent (#3)`, `WebSocket /v1/session/{id}/rpc (#4)`, `stdio conversation (#1)`, `miss: GET /x`. */
  name: string;
  /** The protocol that classified the exchange, else its transport; `replay` for a miss. */
  classname: string;
  /** The exchange's id in the recording; absent for a miss and for an exchange only in diff's baseline. */
  exchange?: number;
  failures: CiProblem[];
  /** What was found but does not fail the command (a finding below `--fail-on`): said, not failed. */
  notes: CiProblem[];
  /** Why the case was not run, when it was not; a skipped case has no failures. */
  skipped?: string;
}

/**
 * What failed, or what is noted. `regression`: a message valid in the baseline is invalid now (diff);
 * `difference`: the recordings differ in this exchange (diff); `finding`: a rule found something
 * (findings); `miss`: a request or line matched nothing recorded; `unused`: a recorded exchange or
 * line no client asked for (replay and fixture with `--strict`).
 */
export interface CiProblem {
  kind: 'regression' | 'difference' | 'finding' | 'miss' | 'unused';
  /** One line, short: the rule (`error schema`), `regression`, `changed`, `miss` … (JUnit's type, GitHub's title). */
  title: string;
  /** One line: the sentence that says what is wrong. */
  message: string;
  /** Further lines: places, values, the findings behind a regression. Possibly empty. */
  details: string[];
}

/** Most detail lines one problem carries; a report is read by people, the full story is in the recording. */
export const MAX_DETAILS = 50;

/** The report, with its totals and verdict counted from its suites. */
export function ciReport(command: CiCommand, suites: CiSuite[]): CiReport {
  const cases = suites.flatMap((s) => s.cases);
  const totals: CiTotals = {
    suites: suites.length,
    cases: cases.length,
    failed: cases.filter((c) => c.failures.length > 0).length,
    skipped: cases.filter((c) => c.failures.length === 0 && c.skipped !== undefined).length,
    failures: cases.reduce((n, c) => n + c.failures.length, 0),
  };
  return { format: 'agent-proxy/ci-report', version: 1, command, ok: totals.failures === 0, totals, suites };
}

/** A problem's detail lines, cut to MAX_DETAILS with a last line saying how many were left out. */
export function cappedDetails(lines: string[]): string[] {
  if (lines.length <= MAX_DETAILS) return lines;
  return [...lines.slice(0, MAX_DETAILS - 1), `…and ${lines.length - MAX_DETAILS + 1} more`];
}
