import { once } from 'node:events';
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import type { CommandResult } from './command-result.js';
import { EXIT_OK } from './exit-codes.js';
import { createProgress } from './progress-line.js';
import { EXPORT_FORMATS, exportFormatOf, type ExportFormat } from './export-format.js';

export function exportCommand(result: CommandResult): Command {
  return new Command('export')
    .description('write a recording as NDJSON (the text form to commit), HAR 1.2, or an HTML page to read (a CI artifact)')
    .argument('<recording>', 'the recording (.db or .ndjson)')
    .addOption(new Option('--format <format>', 'output format (default: what the --out extension names, .ndjson, .har or .html; NDJSON on stdout)').choices(EXPORT_FORMATS))
    .option('--out <file>', 'write here instead of stdout')
    .option('--overwrite', 'replace the --out file if it exists')
    .action(async (recording: string, options: { format?: ExportFormat; out?: string; overwrite?: boolean }) => {
      // The store and the exporters load only when the command runs (fast CLI start).
      const [{ openRecording }, { harOf }, { exportNdjsonPaced }, { writeNdjsonFile }, { writeWholeFile }, { refuseExistingRecording }, { UsageError }, { writeHtmlView }] = await Promise.all([
        import('../store/open-recording.js'),
        import('../export/har-export.js'),
        import('../export/ndjson-export.js'),
        import('../export/ndjson-file.js'),
        import('../export/whole-file.js'),
        import('../store/refuse-existing.js'),
        import('../core/errors.js'),
        import('../export/html-view.js'),
      ]);
      if (options.overwrite && options.out === undefined) throw new UsageError('--overwrite replaces the --out file; it goes with --out');
      const format = exportFormatOf(options.format, options.out);
      // A committed golden file is not clobbered by accident: refused before the recording is read.
      const out = options.out === undefined ? undefined : resolve(options.out);
      if (out !== undefined) refuseExistingRecording(out, options.overwrite);
      // The page shows verdicts, as `show` does: a recording judged by older rules is judged again (in a scratch copy).
      const reader = format === 'html' ? await withCurrentVerdicts(recording) : openRecording(recording);
      // A long export says how far it is, on stderr when that is a terminal, unless the export itself
      // is printed there (stdout on the same terminal), where the line would cut into it.
      const printed = out === undefined && process.stdout.isTTY;
      const progress = createProgress(process.stderr, 'exporting messages:', reader.totals().messages, { isTTY: (stream) => stream.isTTY === true && !printed });
      const tick = () => progress.tick();
      try {
        const har = () => JSON.stringify(harOf(reader, (n) => progress.tick(n)), null, 2) + '\n';
        const html = (write: (text: string) => void) => writeHtmlView(reader, write, { name: recording, onMessage: (n) => progress.tick(n) });
        if (out === undefined) {
          if (format === 'har') process.stdout.write(har());
          else if (format === 'html') html((text) => process.stdout.write(text));
          // Paced by stdout's drain: on a pipe, writes that do not wait are queued in memory, the whole export.
          else await exportNdjsonPaced(reader, (text) => process.stdout.write(text), async () => void (await once(process.stdout, 'drain')), tick);
        } else if (format === 'har') writeWholeFile(out, Boolean(options.overwrite), (write) => write(har()));
        else if (format === 'html') writeWholeFile(out, Boolean(options.overwrite), html);
        else writeNdjsonFile(reader, out, Boolean(options.overwrite), tick);
      } finally {
        progress.done();
        reader.close();
      }
      result.code = EXIT_OK;
    });
}

/** The recording with this build's verdicts (validate/current-verdicts.ts), which loads the judge only when it is needed. */
async function withCurrentVerdicts(file: string) {
  const [{ openWithCurrentVerdicts }, { SchemaRegistry }] = await Promise.all([import('../validate/current-verdicts.js'), import('../schema/schema-registry.js')]);
  return openWithCurrentVerdicts(file, { registry: () => SchemaRegistry.load(), progress: process.stderr });
}
