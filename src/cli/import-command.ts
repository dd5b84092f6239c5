import { Command } from 'commander';
import { importNdjsonFile } from '../export/ndjson-import.js';
import type { CommandResult } from './command-result.js';
import { EXIT_OK } from './exit-codes.js';

export function importCommand(result: CommandResult): Command {
  return new Command('import')
    .description('rebuild a recording (.db) from its NDJSON form, verdicts and findings included')
    .argument('<file>', 'an NDJSON recording written by proxy export --format ndjson')
    .requiredOption('--out <recording>', 'the recording file to write (.db)')
    .option('--overwrite', 'replace the output file if it exists')
    .action((file: string, options: { out: string; overwrite?: boolean }) => {
      const totals = importNdjsonFile(file, options.out, { overwrite: options.overwrite });
      process.stdout.write(`${options.out}: ${totals.exchanges} exchanges, ${totals.messages} messages, ${totals.invalid} invalid, ${totals.findings} findings\n`);
      result.code = EXIT_OK;
    });
}
