import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import type { CommandResult } from './command-result.js';
import { EXIT_OK } from './exit-codes.js';
import { createProgress } from './progress-line.js';
import { EXPORT_FORMATS, exportFormatOf, type ExportFormat } from './export-format.js';

export function exportCommand(result: CommandResult): Command {
  return new Command('export')
    .description('write a recording as NDJSON (the text form to commit) or HAR 1.2')
    .argument('<recording>', 'the recording (.db or .ndjson)')
    .addOption(new Option('--format <format>', 'output format (default: what the --out extension names, .ndjson or .har; NDJSON on stdout)').choices(EXPORT_FORMATS))
    .option('--out <file>', 'write here instead of stdout')
    .option('--overwrite', 'replace the --out file if it exists')
    .action(async (recording: string, options: { format?: ExportFormat; out?: string; overwrite?: boolean }) => {
      // The store and the exporters load only when the command runs (fast CLI start).
      const [{ openRecording }, { harOf }, { exportNdjson }, { writeNdjsonFile }, { writeWholeFile }, { refuseExistingRecording }, { UsageError }] = await Promise.all([
        import('../store/open-recording.js'),
        import('../export/har-export.js'),
        import('../export/ndjson-export.js'),
        import('../export/ndjson-file.js'),
        import('../export/whole-file.js'),
        import('../store/refuse-existing.js'),
        import('../core/errors.js'),
      ]);
      if (options.overwrite && options.out === undefined) throw new UsageError('--overwrite replaces the --out file; it goes with --out');
      const format = exportFormatOf(options.format, options.out);
      // A committed golden file is not clobbered by accident: refused before the recording is read.
      const out = options.out === undefined ? undefined : resolve(options.out);
      if (out !== undefined) refuseExistingRecording(out, options.overwrite);
      const reader = openRecording(recording);
      // A long export says how far it is, on stderr when that is a terminal, unless the export itself
      // is printed there (stdout on the same terminal), where the line would cut into it.
      const printed = out === undefined && process.stdout.isTTY;
      const progress = createProgress(process.stderr, 'exporting messages:', reader.totals().messages, { isTTY: (stream) => stream.isTTY === true && !printed });
      const tick = () => progress.tick();
      try {
        const har = () => JSON.stringify(harOf(reader, (n) => progress.tick(n)), null, 2) + '\n';
        if (out === undefined) {
          if (format === 'har') process.stdout.write(har());
          else exportNdjson(reader, (text) => process.stdout.write(text), tick);
        } else if (format === 'har') writeWholeFile(out, Boolean(options.overwrite), (write) => write(har()));
        else writeNdjsonFile(reader, out, Boolean(options.overwrite), tick);
      } finally {
        progress.done();
        reader.close();
      }
      result.code = EXIT_OK;
    });
}
