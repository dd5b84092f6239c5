import { once } from 'node:events';
import { Command, Option } from 'commander';
import type { Severity } from '../core/finding.js';
import { UsageError } from '../core/errors.js';
import type { FindingFilter, FindingListRow } from '../store/recording-reader.js';
import type { CommandResult } from './command-result.js';
import { EXIT_FINDINGS, EXIT_OK } from './exit-codes.js';
import { styleFor, type Style } from '../core/style.js';
import { count } from '../core/plural.js';
import { findingPlace } from '../protocols/finding-place.js';
import { emitReports, reportOnStdout, reportOption, reportTargetsOf } from './report-flag.js';

const SEVERITIES: readonly Severity[] = ['error', 'warning'];
/** Output is handed to stdout in chunks of about this size, waiting for it to drain in between. */
const CHUNK_CHARS = 64 * 1024;

/**
 * `proxy findings`: every finding of a recording in one list, streamed, with filters and a CI gate.
 * A command of its own rather than `show --findings`: it has its own filters and its own exit code
 * (`--fail-on`), which `show`, a plain viewer that always exits 0, has no place for.
 */
export function findingsCommand(result: CommandResult): Command {
  return new Command('findings')
    .description('list every finding of a recording: exchange, message, rule, severity, pointer and text')
    .argument('<recording>', 'a recording file (.db or .ndjson)')
    .option('--rule <id>', 'only findings of this rule (repeatable)', (value: string, previous: string[] = []) => [...previous, value])
    .addOption(new Option('--severity <severity>', 'only findings of this severity').choices(SEVERITIES))
    .option('--exchange <id>', 'only findings of this exchange')
    .addOption(new Option('--fail-on <severity>', 'exit 1 when a listed finding is of this severity or worse (error > warning)').choices(SEVERITIES))
    .option('--json', 'print one JSON document: {recording, findings, totals}')
    .addOption(reportOption('the findings, a case per exchange failed by those at or above --fail-on,'))
    .action(async (file: string, options: { rule?: string[]; severity?: Severity; exchange?: string; failOn?: Severity; json?: boolean; report: string[] }) => {
      const reports = reportTargetsOf(options.report);
      const filter: FindingFilter = { rules: options.rule, severity: options.severity };
      if (options.exchange !== undefined) {
        const id = Number(options.exchange);
        if (!Number.isInteger(id) || id < 1) throw new UsageError(`--exchange '${options.exchange}' is not an exchange id`);
        filter.exchange = id;
      }
      // The store loads only when the command runs (fast CLI start).
      const [{ openRecordingAsync }, { judgedByCurrentRules }] = await Promise.all([import('../store/open-recording-async.js'), import('../core/rules-version.js')]);
      let reader = await openRecordingAsync(file);
      if (!judgedByCurrentRules(reader.recording())) {
        // Judged by older rules: judged again, in a scratch copy (validate/current-verdicts.ts); the judge loads only then.
        const [{ judgeAgainIfOlder }, { SchemaRegistry }] = await Promise.all([import('../validate/current-verdicts.js'), import('../schema/schema-registry.js')]);
        reader = judgeAgainIfOlder(reader, file, { registry: () => SchemaRegistry.load(), progress: process.stderr });
      }
      const totals = { findings: 0, errors: 0, warnings: 0 };
      // Kept only for a report, which needs them all at the end; the list itself streams.
      const listed: FindingListRow[] | undefined = reports.length > 0 ? [] : undefined;
      // A case per exchange listed: every one, or the one `--exchange` names.
      const exchanges = listed ? reader.exchanges().filter((e) => filter.exchange === undefined || e.id === filter.exchange).map(({ id, transport, protocol, method, path }) => ({ id, transport, protocol, method, path })) : [];
      try {
        // A report on stdout (`--report junit=-`) takes the place of the list there.
        const out = new ChunkedOutput(reportOnStdout(reports));
        const style = styleFor(process.stdout);
        if (options.json) await out.write(`{"recording":${JSON.stringify(file)},"findings":[`);
        for (const row of reader.findings(filter)) {
          totals.findings++;
          if (row.severity === 'error') totals.errors++;
          else totals.warnings++;
          listed?.push(row);
          await out.write(options.json ? (totals.findings > 1 ? ',' : '') + JSON.stringify(jsonOf(row)) : textOf(row, style) + '\n');
        }
        await out.write(options.json ? `],"totals":${JSON.stringify(totals)}}\n` : `${count(totals.findings, 'finding')} (${count(totals.errors, 'error')}, ${count(totals.warnings, 'warning')})\n`);
        await out.flush();
      } finally {
        reader.close();
      }
      await emitReports(async () => {
        const { findingsCiReport } = await import('../report/from-findings.js');
        return findingsCiReport({ file, exchanges, findings: listed ?? [], failOn: options.failOn, properties: filterProperties(options) });
      }, reports);
      const failing = options.failOn === 'warning' ? totals.findings : options.failOn === 'error' ? totals.errors : 0;
      result.code = failing > 0 ? EXIT_FINDINGS : EXIT_OK;
    });
}

/**
 * `#3 POST /agent  12 ← TOOL_CALL_ARGS  error tool-call-args-unknown at /delta: …`; a finding of the
 * exchange itself (seq 0) has no message to name: `#4 GET /health  exchange  error upstream-tls-failed: …` (or upstream-unreachable).
 */
function textOf(row: FindingListRow, style: Style): string {
  const request = `${row.method ?? ''} ${row.path ?? ''}`.trim() || row.transport;
  const severity = row.severity === 'error' ? style.red('error') : style.yellow('warning');
  if (row.seq === 0) return `#${row.exchange} ${request}  ${row.label}  ${severity} ${row.rule}: ${row.message}`;
  return `#${row.exchange} ${request}  ${row.seq} ${row.sender === 'client' ? '→' : '←'} ${row.label}  ${severity} ${row.rule} ${findingPlace(row)}: ${row.message}`;
}

/** The stable `findings --json` entry; scripts depend on these names. */
function jsonOf(row: FindingListRow) {
  return {
    exchange: row.exchange,
    transport: row.transport,
    protocol: row.protocol,
    method: row.method,
    path: row.path,
    seq: row.seq,
    sender: row.sender,
    label: row.label,
    rule: row.rule,
    severity: row.severity,
    pointer: row.pointer,
    message: row.message,
  };
}

/** The filters a report names, as given. */
function filterProperties(options: { rule?: string[]; severity?: Severity; exchange?: string }): Record<string, string> {
  return { ...(options.rule ? { rule: options.rule.join(' ') } : {}), ...(options.severity ? { severity: options.severity } : {}), ...(options.exchange ? { exchange: options.exchange } : {}) };
}

/** Gathers output into chunks and waits for stdout to drain, so a long list streams with flat memory; `silent`, it writes nothing. */
class ChunkedOutput {
  private pending = '';

  constructor(private readonly silent = false) {}

  async write(text: string): Promise<void> {
    if (this.silent) return;
    this.pending += text;
    if (this.pending.length >= CHUNK_CHARS) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending === '') return;
    const chunk = this.pending;
    this.pending = '';
    if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
  }
}
