import { closeSync, openSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import type { CommandResult } from './command-result.js';
import { EXIT_OK } from './exit-codes.js';

export function exportCommand(result: CommandResult): Command {
  return new Command('export')
    .description('write a recording as NDJSON (the text form to commit) or HAR 1.2')
    .argument('<recording>', 'the recording (.db or .ndjson)')
    .addOption(new Option('--format <format>', 'output format').choices(['ndjson', 'har']).makeOptionMandatory())
    .option('--out <file>', 'write here instead of stdout')
    .option('--overwrite', 'replace the --out file if it exists')
    .action(async (recording: string, options: { format: 'ndjson' | 'har'; out?: string; overwrite?: boolean }) => {
      // The store and the exporters load only when the command runs (fast CLI start).
      const [{ openRecording }, { exportHar }, { exportNdjson }, { partialPath, publishFile, removeIfThere }, { refuseExistingRecording }, { UsageError }] = await Promise.all([
        import('../store/open-recording.js'),
        import('../export/har-export.js'),
        import('../export/ndjson-export.js'),
        import('../store/recording-files.js'),
        import('../store/refuse-existing.js'),
        import('../core/errors.js'),
      ]);
      if (options.overwrite && options.out === undefined) throw new UsageError('--overwrite replaces the --out file; it goes with --out');
      // A committed golden file is not clobbered by accident: refused before the recording is read.
      const out = options.out === undefined ? undefined : resolve(options.out);
      if (out !== undefined) refuseExistingRecording(out, options.overwrite);
      const reader = openRecording(recording);
      // Written under a temporary name beside --out and renamed once complete, so that a failure
      // halfway (a damaged recording, a full disk, a kill) leaves the old file, or none, never half of one.
      const partial = out === undefined ? undefined : partialPath(out);
      let fd: number | undefined;
      try {
        if (partial !== undefined) fd = openOut(partial, out!);
        const write = (text: string) => (fd === undefined ? process.stdout.write(text) : writeSync(fd, text));
        if (options.format === 'har') write(JSON.stringify(exportHar(reader), null, 2) + '\n');
        else exportNdjson(reader, write);
        if (fd !== undefined) closeSync(fd);
        fd = undefined;
      } catch (error) {
        if (fd !== undefined) closeSync(fd);
        if (partial !== undefined) removeIfThere(partial);
        throw error;
      } finally {
        reader.close();
      }
      if (partial !== undefined) publishFile(partial, out!, options.overwrite);
      result.code = EXIT_OK;
    });
}

/** Opens the temporary file of `--out`; an error names `--out` as given, not the temporary name. */
function openOut(partial: string, out: string): number {
  try {
    return openSync(partial, 'w');
  } catch (error) {
    throw new Error(`cannot write ${out}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
  }
}
