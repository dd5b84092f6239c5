/**
 * The agreement property, in-process: `validate`, `show --json`, `findings --json` and the inspector
 * API give the same set of (exchange, message, rule, severity) for one recording. Each view is made
 * by the functions its command calls (validate's readInput and validateInputReporting; the reader
 * that show and findings open, judged again when older; the inspector's InspectorData), without
 * spawning the CLI: test/support/agreement-setup.ts runs it over every recording the suite writes.
 */
import { exchangeFindings } from '../../src/core/exchange-findings.js';
import type { Finding } from '../../src/core/finding.js';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { InspectorData, MAX_PAGE } from '../../src/ui/server/inspector-data.js';
import { judgeAgainIfOlder } from '../../src/validate/current-verdicts.js';
import { readInput } from '../../src/validate/read-input.js';
import { validateInputReporting } from '../../src/validate/validate-input.js';
import { isNdjsonRecording, openRecording } from '../../src/store/open-recording.js';
import type { RecordingReader } from '../../src/store/recording-reader.js';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { TOOL_VERSION } from '../../src/core/version.js';
import { fileURLToPath } from 'node:url';
import { STANDIN_SCHEMAS_DIR } from './shared.js';

/** One finding as every view can name it: `#exchange.seq severity rule` (seq 0: the exchange's own). */
export type AgreementKey = string;
export interface AgreementViews {
  validate: AgreementKey[];
  show: AgreementKey[];
  findings: AgreementKey[];
  inspector: AgreementKey[];
}

const key = (exchange: number, seq: number, f: Pick<Finding, 'rule' | 'severity'>): AgreementKey => `#${exchange}.${seq} ${f.severity} ${f.rule}`;

// The validators the build compiled, as the commands use them (compiling the schemas here would cost each test file seconds).
const compiledValidators = () => fileURLToPath(new URL('../../dist/schema/compiled', import.meta.url));
let plain: SchemaRegistry | undefined;
let standIn: SchemaRegistry | undefined;
/**
 * The commands' schemas; and, for a recording made with the test stand-in schemas (`--schemas`), those too, as its validate would be run.
 * Each loaded when first asked for, once per worker (~0.2 s each): the stand-ins only for a recording that validate without them reads otherwise.
 */
const schemas = {
  get plain(): SchemaRegistry {
    return (plain ??= SchemaRegistry.load({ compiledValidators: compiledValidators() }));
  },
  get standIn(): SchemaRegistry {
    return (standIn ??= SchemaRegistry.load({ compiledValidators: compiledValidators(), extraDirs: [STANDIN_SCHEMAS_DIR] }));
  },
};

export function validateView(file: string, registry: SchemaRegistry = schemas.plain): AgreementKey[] {
  const report = validateInputReporting(readInput(file), registry);
  return [
    ...report.messages.flatMap((m) => m.verdict.findings.map((f) => key(m.exchange ?? 0, m.seq ?? 0, f))),
    ...(report.exchangeFindings ?? []).map((f) => key(f.exchange, 0, f)),
  ];
}

/**
 * show --json and findings --json: the same reader (judged again when older), read as each command reads it.
 * `opened`: the file as show opens it (openRecording), when the caller has it already (toCheck); closed here.
 */
function showAndFindingsViews(file: string, opened?: RecordingReader): Pick<AgreementViews, 'show' | 'findings'> {
  const reader = judgeAgainIfOlder(opened ?? openRecording(file), file, { registry: () => schemas.plain });
  try {
    const show: AgreementKey[] = [];
    for (const exchange of reader.exchanges()) {
      for (const f of exchangeFindings(exchange)) show.push(key(exchange.id, 0, f));
      for (const m of reader.messages(exchange.id)) for (const f of m.verdict.findings) show.push(key(exchange.id, m.seq, f));
    }
    const findings = [...reader.findings({})].map((f) => key(f.exchange, f.seq, f));
    return { show, findings };
  } finally {
    reader.close();
  }
}

function inspectorView(file: string): AgreementKey[] {
  const data = InspectorData.open(file);
  try {
    const keys: AgreementKey[] = [];
    for (const { id } of data.exchanges()) {
      for (const f of data.exchange(id)?.findings ?? []) keys.push(key(id, 0, f));
      for (let offset = 0, total = Infinity; offset < total; offset += MAX_PAGE) {
        const page = data.messages(id, offset, MAX_PAGE);
        total = page.total;
        for (const m of page.items) if (m.findingCount > 0) for (const f of data.message(id, m.seq)?.findings ?? []) keys.push(key(id, m.seq, f));
      }
    }
    return keys;
  } finally {
    data.close();
  }
}

/** `opened`: as showAndFindingsViews takes it. */
export function agreementViews(file: string, opened?: RecordingReader): AgreementViews {
  let validate: AgreementKey[];
  try {
    validate = validateView(file);
  } catch (error) {
    opened?.close();
    throw error;
  }
  return { validate, ...showAndFindingsViews(file, opened), inspector: inspectorView(file) };
}

const sorted = (keys: AgreementKey[]) => [...keys].sort();
const same = (a: AgreementKey[], b: AgreementKey[]) => JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));

/** What is in one view and not in findings', and the other way round. */
function difference(name: string, view: AgreementKey[], findings: AgreementKey[]): string {
  const only = (a: AgreementKey[], b: AgreementKey[]) => {
    const rest = [...b];
    return sorted(a).filter((k) => {
      const i = rest.indexOf(k);
      if (i < 0) return true;
      rest.splice(i, 1);
      return false;
    });
  };
  return `${name} has ${JSON.stringify(only(view, findings))} that findings has not, and lacks ${JSON.stringify(only(findings, view))}`;
}

/**
 * Recordings of more than this many exchanges and messages are left out: they come from the volume
 * tests (bursts, long lines, limits, many exchanges), which go through the same rules as the small
 * ones, and reading them four times would cost seconds each (a 10,000-line burst: 11 s).
 */
export const MAX_CHECKED_ROWS = 2_000;
/** The same for bytes (the file and its write-ahead log): a few messages nested 100,000 deep cost 20 s each. */
export const MAX_CHECKED_BYTES = 512 * 1024;

/**
 * Why the recording is not checked, or undefined when it is: one of more than MAX_CHECKED_ROWS
 * exchanges and messages or MAX_CHECKED_BYTES, or one that this tool did not write (its `toolVersion` is not this
 * package's): a test that writes a recording with the store directly (`toolVersion: 'test'`) sets
 * its verdicts by hand, to see how the commands show them, not as the rules would judge.
 */
export function notChecked(file: string): 'large' | 'by hand' | undefined {
  const { why, reader } = toCheck(file);
  reader?.close();
  return why;
}

/**
 * notChecked's answer and, for a .db, the reader it read that from: the file as `show` opens it, which
 * disagreement() then reads show's and findings' views with (and closes) rather than opening the file
 * once more (an open of a small recording was a tenth of its check). The caller closes a reader it does not hand on.
 */
export function toCheck(file: string): { why: 'large' | 'by hand' | undefined; reader?: RecordingReader } {
  const wal = `${file}-wal`;
  if (statSync(file).size + (existsSync(wal) ? statSync(wal).size : 0) > MAX_CHECKED_BYTES) return { why: 'large' };
  if (isNdjsonRecording(file)) {
    const text = readFileSync(file);
    const toolVersion = (JSON.parse(text.subarray(0, text.indexOf(10) < 0 ? text.length : text.indexOf(10)).toString('utf8')) as { toolVersion?: unknown }).toolVersion;
    if (toolVersion !== TOOL_VERSION) return { why: 'by hand' };
    let rows = 0;
    for (let i = text.indexOf(10); i >= 0; i = text.indexOf(10, i + 1)) rows++;
    return { why: rows > MAX_CHECKED_ROWS ? 'large' : undefined };
  }
  const reader = openRecording(file);
  try {
    const totals = reader.totals();
    const why = reader.recording().toolVersion !== TOOL_VERSION ? 'by hand' : totals.exchanges + totals.messages > MAX_CHECKED_ROWS ? 'large' : undefined;
    return { why, reader };
  } catch (error) {
    reader.close();
    throw error;
  }
}

/** Undefined when the four views agree on `file`, else what differs. `opened`: toCheck's reader, closed here. */
export function disagreement(file: string, opened?: RecordingReader): string | undefined {
  const views = agreementViews(file, opened);
  const problems: string[] = [];
  if (!same(views.validate, views.findings)) {
    // Made with the stand-in schemas (`--schemas test/fixtures/…`): validate it as its user would, with them.
    const withStandIns = validateView(file, schemas.standIn);
    if (!same(withStandIns, views.findings)) problems.push(difference('validate', views.validate, views.findings));
  }
  if (!same(views.show, views.findings)) problems.push(difference('show', views.show, views.findings));
  if (!same(views.inspector, views.findings)) problems.push(difference('the inspector', views.inspector, views.findings));
  return problems.length === 0 ? undefined : `${file}: ${problems.join('; ')}`;
}
