import { Command, Option } from 'commander';
import type { DiffReport, ExchangeRef } from '../diff/diff-report.js';
import { UsageError } from '../core/errors.js';
import type { CommandResult } from './command-result.js';
import { EXIT_FINDINGS, EXIT_OK } from './exit-codes.js';
import { collect } from './option-parsers.js';
import { styleFor } from '../core/style.js';

interface DiffCommandOptions {
  format: 'text' | 'json' | 'markdown';
  ignore: string[];
  semantic?: boolean;
  config?: string;
}

export function diffCommand(result: CommandResult): Command {
  return new Command('diff')
    .description('compare two recordings after normalization; exit 0 equal, 1 differ, 2 error')
    .argument('<a>', 'the baseline recording (.db or .ndjson)')
    .argument('<b>', 'the recording to compare with it (.db or .ndjson)')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'markdown']).default('text'))
    .option('--ignore <field>', 'another field to ignore: a JSON pointer (* for any key) or a key name (repeatable)', collect, [])
    .option('--semantic', 'compare what the client materialises (AG-UI runs, Pi sessions) instead of wire chunks')
    .option('--config <file>', 'JSON config: {"ignore": [...], "semantic": bool}')
    .action(async (a: string, b: string, options: DiffCommandOptions) => {
      // The diff engine loads only when the command runs (fast CLI start).
      const [{ loadDiffConfig }, { diffRecordingFiles }, { renderMarkdown }, { renderText }] = await Promise.all([
        import('../diff/diff-options.js'),
        import('../diff/diff-recordings.js'),
        import('../diff/render-markdown.js'),
        import('../diff/render-text.js'),
      ]);
      const config = options.config ? loadDiffConfig(options.config) : {};
      const report = diffRecordingFiles(a, b, {
        ignore: [...(config.ignore ?? []), ...options.ignore],
        semantic: Boolean(options.semantic ?? config.semantic),
      });
      const unrelated = nothingInCommon(report, a, b);
      if (unrelated !== undefined) throw new UsageError(unrelated);
      if (options.format === 'json') process.stdout.write(JSON.stringify(report, null, 2) + '\n');
      else if (options.format === 'markdown') process.stdout.write(renderMarkdown(report));
      else process.stdout.write(renderText(report, styleFor(process.stdout)));
      result.code = report.equal ? EXIT_OK : EXIT_FINDINGS;
    });
}

/**
 * Two recordings of different protocols share no exchange: listing all of one as removed and all of
 * the other as added (with a "fixed" for every invalid message) would bury that. Says it instead.
 */
export function nothingInCommon(report: DiffReport, a: string, b: string): string | undefined {
  const { equal, changed, added, removed } = report.summary.exchanges;
  if (equal > 0 || changed > 0 || added === 0 || removed === 0) return undefined;
  // Plain HTTP exchanges no protocol claimed (a health check) say nothing about what a recording is of.
  const protocols = (refs: Array<ExchangeRef | null>) => [...new Set(refs.map((r) => r?.protocol).filter((p): p is string => typeof p === 'string'))];
  const inA = protocols(report.exchanges.map((e) => e.a));
  const inB = protocols(report.exchanges.map((e) => e.b));
  if (inA.length === 0 || inB.length === 0 || inA.some((p) => inB.includes(p))) return undefined;
  const list = (items: string[]) => (items.length === 1 ? items[0] : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`);
  return `the recordings have nothing in common to compare: ${a} holds ${list(inA)} exchanges, ${b} holds ${list(inB)} exchanges`;
}
