import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { Command, Option } from 'commander';
import type { CommandResult } from './command-result.js';
import { EXIT_OK } from './exit-codes.js';

export function exportCommand(result: CommandResult): Command {
  return new Command('export')
    .description('write a recording as NDJSON (the text form to commit) or HAR 1.2')
    .argument('<recording>', 'the recording (.db or .ndjson)')
    .addOption(new Option('--format <format>', 'output format').choices(['ndjson', 'har']).makeOptionMandatory())
    .option('--out <file>', 'write here instead of stdout')
    .action(async (recording: string, options: { format: 'ndjson' | 'har'; out?: string }) => {
      // The store and the exporters load only when the command runs (fast CLI start).
      const [{ openRecording }, { exportHar }, { exportNdjson }] = await Promise.all([
        import('../export/open-recording.js'),
        import('../export/har-export.js'),
        import('../export/ndjson-export.js'),
      ]);
      const reader = openRecording(recording);
      const fd = options.out ? openSync(options.out, 'w') : undefined;
      const write = (text: string) => (fd === undefined ? process.stdout.write(text) : writeSync(fd, text));
      try {
        if (options.format === 'har') write(JSON.stringify(exportHar(reader), null, 2) + '\n');
        else exportNdjson(reader, write);
      } catch (error) {
        // A recording found damaged halfway leaves no half-written export behind.
        if (fd !== undefined) rmSync(options.out!, { force: true });
        throw error;
      } finally {
        if (fd !== undefined) closeSync(fd);
        reader.close();
      }
      result.code = EXIT_OK;
    });
}
