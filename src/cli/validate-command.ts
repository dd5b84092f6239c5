import { Command } from 'commander';
import type { ValidationReport } from '../validate/judge-input.js';
import { PROTOCOL_IDS } from '../protocols/catalog.js';
import { UsageError } from '../core/errors.js';
import { parseProtocolOption } from '../judge/protocol-option.js';
import { EXIT_FINDINGS, EXIT_OK } from './exit-codes.js';
import { styleFor, type Style } from '../core/style.js';
import type { CommandResult } from './command-result.js';
import { collect } from './option-parsers.js';
import { count } from '../core/plural.js';
import { createProgress, type Progress } from './progress-line.js';
import { findingPlace } from '../protocols/finding-place.js';

export function validateCommand(result: CommandResult): Command {
  return new Command('validate')
    .description('check a saved stream or capture against the protocol schemas and behaviour rules')
    .argument('<file>', 'a JSON array of messages, NDJSON/JSONL, a raw SSE body, or a capture ({records:[...]})')
    .option('--protocol <id>', `protocol of the messages: ${['auto', ...PROTOCOL_IDS].join(', ')}`, 'auto')
    .option('--schemas <dir>', 'extra schema directory (repeatable); also AGENT_PROXY_SCHEMAS', collect, [])
    .option('--json', 'print a machine-readable report')
    .action(async (file: string, options: { protocol: string; schemas: string[]; json?: boolean }) => {
      const protocol = parseProtocolOption(options.protocol);
      // The schemas and the protocol catalog load only when the command runs (fast CLI start).
      const [{ SchemaRegistry }, { isRecordingFile, readMessageFile }, { judgeInputLoading }, { writeReportJson }] = await Promise.all([
        import('../schema/schema-registry.js'),
        import('../validate/message-file.js'),
        import('../validate/judge-input.js'),
        import('../validate/report-json.js'),
      ]);
      const registry = SchemaRegistry.load({ extraDirs: options.schemas });
      // A long validation says how far it is, on stderr when that is a terminal; never with --json.
      // A recording is judged as it is read (the store loads only for one); a file is read, then judged.
      let progress: Progress | undefined;
      let report: ValidationReport;
      try {
        if (isRecordingFile(file)) {
          const { judgeRecordingLoading } = await import('../validate/judge-recording.js');
          // The messages are counted (an index read whole) only for a line that shows, as `export` does.
          const shown = !options.json && process.stderr.isTTY === true;
          const tellProgress = shown ? { total: (n: number) => (progress = createProgress(process.stderr, 'validating messages:', n)), read: () => progress?.tick() } : undefined;
          // The text report prints only the messages that are not valid or have findings: only those are kept.
          report = await judgeRecordingLoading(file, registry, protocol, tellProgress, options.json ? 'all' : 'notable');
        } else {
          const input = readMessageFile(file);
          const total = input.streams.reduce((sum, stream) => sum + stream.messages.length, 0);
          progress = options.json ? undefined : createProgress(process.stderr, 'validating messages:', total);
          report = await judgeInputLoading(input, registry, protocol, progress && (() => progress?.tick()));
        }
      } finally {
        progress?.done();
      }
      // Nothing recognised is nothing checked: that must not pass a CI step as "0 invalid".
      if (report.summary.messages > 0 && report.protocols.length === 0) {
        const n = report.summary.messages;
        throw new UsageError(`${file}: no known protocol recognises its ${n === 1 ? 'message' : `${n} messages`}, so nothing was checked; name the protocol with --protocol (${PROTOCOL_IDS.join(', ')})`);
      }
      if (options.json) await writeReportJson(report, (text) => (process.stdout.write(text) ? true : new Promise((resolve) => process.stdout.once('drain', resolve))));
      else printReport(report, styleFor(process.stdout));
      const failedExchange = report.exchangeFindings?.some((f) => f.severity === 'error') ?? false;
      result.code = report.summary.invalid > 0 || failedExchange ? EXIT_FINDINGS : EXIT_OK;
    });
}

function printReport(report: ValidationReport, style: Style): void {
  const out: string[] = [];
  for (const m of report.messages) {
    if (m.verdict.status === 'valid' && m.verdict.findings.length === 0) continue;
    // A recording's message is `#exchange.seq`, as `show --exchange` numbers it: `#N` is an exchange everywhere.
    const where = m.line !== undefined ? `${report.file}:${m.line}` : m.exchange !== undefined ? `${report.file} #${m.exchange}.${m.seq}` : `${report.file} #${m.index + 1}`;
    const status = m.verdict.status === 'invalid' ? style.red('invalid') : m.verdict.status === 'unchecked' ? style.yellow('unchecked') : style.green('valid');
    out.push(`${where}  ${m.sender === 'client' ? '→' : '←'} ${style.bold(m.label)}  ${status}${m.verdict.reason ? style.dim(`  (${m.verdict.reason})`) : ''}`);
    for (const f of m.verdict.findings) {
      const severity = f.severity === 'error' ? style.red('error') : style.yellow('warning');
      out.push(`    ${severity} ${f.rule} ${findingPlace(f)}: ${f.message}`);
    }
  }
  for (const f of report.exchangeFindings ?? []) {
    out.push(`${report.file} ${f.stream}  ${f.severity === 'error' ? style.red('error') : style.yellow('warning')} ${f.rule}: ${f.message}`);
  }
  const s = report.summary;
  out.push(
    `${count(s.messages, 'message')} (${report.protocols.join(', ') || 'unknown protocol'}): ` +
      `${style.green(`${s.valid} valid`)}, ${s.invalid > 0 ? style.red(`${s.invalid} invalid`) : '0 invalid'}, ${s.unchecked} unchecked; ` +
      `${count(s.errors, 'error')}, ${count(s.warnings, 'warning')}`,
  );
  process.stdout.write(out.join('\n') + '\n');
}
