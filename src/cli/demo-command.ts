import { Command } from 'commander';
import type { CommandResult } from './command-result.js';
import { EXIT_FINDINGS, EXIT_OK } from './exit-codes.js';
import { styleFor } from '../core/style.js';
import { commandFrom } from './invocation.js';
import { createLiveView } from './live-view.js';

export function demoCommand(result: CommandResult): Command {
  return new Command('demo')
    .description('the whole loop in one command: bundled AG-UI agent → record → replay → record again → diff')
    .option('--dir <dir>', 'where to write the recordings (default a new temp dir)')
    .action(async (options: { dir?: string }) => {
      // The demo agent, recorder and replayer load only when the command runs (fast CLI start).
      const { runDemo } = await import('../demo/run-demo.js');
      const style = styleFor(process.stdout);
      const outcome = await runDemo({
        dir: options.dir,
        style,
        liveView: (totals) => createLiveView({ json: false, quiet: false, style, startedAt: new Date(), totals }),
        command: commandFrom(process.cwd()),
      });
      // The two recordings must be equal after normalization; anything else is a bug worth a non-zero exit.
      result.code = outcome.report.equal ? EXIT_OK : EXIT_FINDINGS;
    });
}
