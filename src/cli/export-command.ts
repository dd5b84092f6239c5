import { once } from 'node:events';
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import type { CommandResult } from './command-result.js';
import { EXIT_OK } from './exit-codes.js';
import { createProgress } from './progress-line.js';
import { EXPORT_FORMATS, exportFormatOf, type ExportFormat } from './export-format.js';
import type { RecordingReader } from '../store/recording-reader.js';

export function exportCommand(result: CommandResult): Command {
  return new Command('export')
    .description('write a recording as NDJSON (the text form to commit), HAR 1.2, or an HTML page to read (a CI artifact)')
    .argument('<recording>', 'the recording (.db or .ndjson)')
    .addOption(new Option('--format <format>', 'output format (default: what the --out extension names, .ndjson, .har or .html; NDJSON on stdout)').choices(EXPORT_FORMATS))
    .option('--out <file>', 'write here instead of stdout')
    .option('--overwrite', 'replace the --out file if it exists')
    .action(async (recording: string, options: { format?: ExportFormat; out?: string; overwrite?: boolean }) => {
      // The store loads only when the command runs, and only the format's own exporter (fast CLI start):
      // the HTML page's views load every protocol's module, which an NDJSON export never needs.
      const [{ openRecordingAsync }, { refuseExistingRecording }, { UsageError }] = await Promise.all([
        import('../store/open-recording-async.js'),
        import('../store/refuse-existing.js'),
        import('../core/errors.js'),
      ]);
      if (options.overwrite && options.out === undefined) throw new UsageError('--overwrite replaces the --out file; it goes with --out');
      const format = exportFormatOf(options.format, options.out);
      // A committed golden file is not clobbered by accident: refused before the recording is read.
      const out = options.out === undefined ? undefined : resolve(options.out);
      if (out !== undefined) refuseExistingRecording(out, options.overwrite);
      const write = await exporterOf(format);
      // The page shows verdicts, as `show` does: a recording judged by older rules is judged again (in a scratch copy).
      const reader = format === 'html' ? await withCurrentVerdicts(recording) : await openRecordingAsync(recording);
      // A long export says how far it is, on stderr when that is a terminal, unless the export itself
      // is printed there (stdout on the same terminal), where the line would cut into it.
      const printed = out === undefined && process.stdout.isTTY;
      const shown = process.stderr.isTTY === true && !printed;
      // Off a terminal the line shows nothing: the messages are not counted for it.
      const progress = createProgress(process.stderr, 'exporting messages:', shown ? reader.totals().messages : undefined, { isTTY: () => shown });
      try {
        await write({ reader, recording, out, overwrite: Boolean(options.overwrite), tick: (n) => progress.tick(n) });
      } finally {
        progress.done();
        reader.close();
      }
      result.code = EXIT_OK;
    });
}

/** What one export writes from: the recording read, its name, and where the output goes (stdout when `out` is undefined). */
interface ExportJob {
  reader: RecordingReader;
  recording: string;
  out: string | undefined;
  overwrite: boolean;
  tick: (messages?: number) => void;
}

/** The writer of one format, with only that format's exporter loaded. */
async function exporterOf(format: ExportFormat): Promise<(job: ExportJob) => Promise<void>> {
  if (format === 'har') {
    const [{ harOf }, { writeWholeFile }] = await Promise.all([import('../export/har-export.js'), import('../export/whole-file.js')]);
    return async ({ reader, out, overwrite, tick }) => {
      const har = () => JSON.stringify(harOf(reader, tick), null, 2) + '\n';
      if (out === undefined) process.stdout.write(har());
      else writeWholeFile(out, overwrite, (write) => write(har()));
    };
  }
  if (format === 'html') {
    const [{ writeHtmlView }, { writeWholeFile }] = await Promise.all([import('../export/html-view.js'), import('../export/whole-file.js')]);
    return async ({ reader, recording, out, overwrite, tick }) => {
      const html = (write: (text: string) => void) => writeHtmlView(reader, write, { name: recording, onMessage: tick });
      if (out === undefined) html((text) => process.stdout.write(text));
      else writeWholeFile(out, overwrite, html);
    };
  }
  const [{ exportNdjsonPaced }, { writeNdjsonFile }] = await Promise.all([import('../export/ndjson-export.js'), import('../export/ndjson-file.js')]);
  return async ({ reader, out, overwrite, tick }) => {
    // Paced by stdout's drain: on a pipe, writes that do not wait are queued in memory, the whole export.
    if (out === undefined) await exportNdjsonPaced(reader, (chunk, written) => process.stdout.write(chunk, written), async () => void (await once(process.stdout, 'drain')), () => tick());
    else writeNdjsonFile(reader, out, overwrite, () => tick());
  };
}

/** The recording with this build's verdicts (validate/current-verdicts.ts), which loads the judge only when it is needed. */
async function withCurrentVerdicts(file: string) {
  const [{ openWithCurrentVerdicts }, { SchemaRegistry }] = await Promise.all([import('../validate/current-verdicts.js'), import('../schema/schema-registry.js')]);
  return openWithCurrentVerdicts(file, { registry: () => SchemaRegistry.load(), progress: process.stderr });
}
