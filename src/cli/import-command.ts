import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Command } from 'commander';
import type { StoreTotals } from '../store/store-types.js';
import type { CommandResult } from './command-result.js';
import { EXIT_OK, EXIT_USAGE, errorLine } from './exit-codes.js';
import type { ImportJob } from './import-worker.js';
import { totalsText } from './totals-text.js';
import { createProgress } from './progress-line.js';
import { keepSecretsMatchingOf, keepSecretsOption } from './recording-rule-flags.js';

export function importCommand(result: CommandResult): Command {
  return new Command('import')
    .description('rebuild a recording (.db) from its NDJSON form, verdicts and findings included')
    .argument('<file>', 'an NDJSON recording written by agent-proxy export --format ndjson')
    .requiredOption('--out <recording>', 'the recording file to write (.db)')
    .option('--overwrite', 'replace the output file if it exists')
    .addOption(keepSecretsOption('the recording written'))
    .action(async (file: string, options: { out: string; overwrite?: boolean; keepSecretsMatching: string[] }) => {
      const keepSecretsMatching = keepSecretsMatchingOf(options.keepSecretsMatching);
      const totals = await importOnThread({ file, out: options.out, overwrite: options.overwrite, keepSecretsMatching });
      if (totals === undefined) {
        result.code = EXIT_USAGE;
        return;
      }
      process.stdout.write(`${options.out}: ${totalsText(totals)}\n`);
      result.code = EXIT_OK;
    });
}

/**
 * Imports on a worker thread, and on SIGINT or SIGTERM stops it and removes what it had written
 * under its temporary name, as an error would: nothing is left but what was there before. Resolves
 * to undefined when a signal stopped it (its line is printed here).
 */
async function importOnThread(job: ImportJob): Promise<StoreTotals | undefined> {
  const worker = new Worker(new URL('./import-worker.js', import.meta.url), { workerData: job });
  let stoppedBy: NodeJS.Signals | undefined;
  const stop = (signal: NodeJS.Signals) => {
    stoppedBy ??= signal;
    void worker.terminate();
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, stop);
  // A long import says how far it is, on stderr when that is a terminal (the total is not known before the lines are read).
  const progress = createProgress(process.stderr, 'importing messages:');
  try {
    const answer = await new Promise<{ totals?: StoreTotals; error?: string } | undefined>((done, fail) => {
      worker.on('message', (message: { progress?: number; totals?: StoreTotals; error?: string }) => {
        if (message.progress !== undefined) progress.tick(message.progress);
        else done(message);
      });
      worker.once('error', fail);
      worker.once('exit', () => done(undefined));
    });
    progress.done();
    if (stoppedBy !== undefined || answer === undefined) {
      // The thread's store modules are the same as ours: its temporary file is named for this process.
      const { partialPath, removeRecordingFiles } = await import('../store/recording-files.js');
      removeRecordingFiles(partialPath(resolve(job.out)));
      process.stderr.write(errorLine(`import stopped by ${stoppedBy ?? 'its thread ending'}: ${job.out} was not written`) + '\n');
      return undefined;
    }
    if (answer.error !== undefined) throw new Error(answer.error);
    return answer.totals;
  } finally {
    progress.done();
    for (const signal of signals) process.off(signal, stop);
    await worker.terminate();
  }
}
