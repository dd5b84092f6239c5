import { Command } from 'commander';
import type { CommandResult } from './command-result.js';
import { EXIT_OK } from './exit-codes.js';
import { totalsText } from './totals-text.js';

export function importCommand(result: CommandResult): Command {
  return new Command('import')
    .description('rebuild a recording (.db) from its NDJSON form, verdicts and findings included')
    .argument('<file>', 'an NDJSON recording written by agent-proxy export --format ndjson')
    .requiredOption('--out <recording>', 'the recording file to write (.db)')
    .option('--overwrite', 'replace the output file if it exists')
    .action(async (file: string, options: { out: string; overwrite?: boolean }) => {
      // The store loads only when the command runs (fast CLI start).
      const { importNdjsonFile } = await import('../store/ndjson-import.js');
      const totals = importNdjsonFile(file, options.out, { overwrite: options.overwrite });
      process.stdout.write(`${options.out}: ${totalsText(totals)}\n`);
      result.code = EXIT_OK;
    });
}
