import { Command } from 'commander';
import type { StoreTotals } from '../store/store-types.js';
import type { CommandResult } from './command-result.js';
import { EXIT_OK } from './exit-codes.js';
import { totalsText } from './totals-text.js';
import { createProgress } from './progress-line.js';

export function importCommand(result: CommandResult): Command {
  return new Command('import')
    .description('rebuild a recording (.db) from its NDJSON form, verdicts and findings included')
    .argument('<file>', 'an NDJSON recording written by agent-proxy export --format ndjson')
    .requiredOption('--out <recording>', 'the recording file to write (.db)')
    .option('--overwrite', 'replace the output file if it exists')
    .action(async (file: string, options: { out: string; overwrite?: boolean }) => {
      // The store loads only when the command runs (fast CLI start).
      const { importNdjsonText, readNdjsonRecordingText } = await import('../store/ndjson-import.js');
      const text = readNdjsonRecordingText(file);
      // A long import says how far it is, on stderr when that is a terminal (the total is not known before the lines are read).
      const progress = createProgress(process.stderr, 'importing messages:');
      let totals: StoreTotals;
      try {
        totals = importNdjsonText(text, options.out, { overwrite: options.overwrite, file, onMessage: () => progress.tick() });
      } finally {
        progress.done();
      }
      process.stdout.write(`${options.out}: ${totalsText(totals)}\n`);
      result.code = EXIT_OK;
    });
}
