import { Command } from 'commander';
import type { CommandResult } from './command-result.js';
import { EXIT_OK } from './exit-codes.js';
import { warnIfReachable } from './exposure-warning.js';
import { styleFor } from '../core/style.js';

interface ViewOptions {
  listen?: string;
  diff?: string;
  allowRemote?: boolean;
}

export function viewCommand(result: CommandResult): Command {
  return new Command('view')
    .description('serve the inspector: a local web page for looking at a recording (timeline, messages, findings, AG-UI runs, diff)')
    .argument('<recording>', 'the recording (.db or .ndjson)')
    .option('--listen <addr>', '[host:]port to serve on (default 127.0.0.1:8790; 0 picks a free port)')
    .option('--diff <other>', 'another recording: add a diff view of `agent-proxy diff <recording> <other>`')
    .option('--allow-remote', 'allow a --listen address other machines can reach (anyone who reaches it can read the recording)')
    .action(async (recording: string, options: ViewOptions) => {
      // The inspector server loads only when the command runs (fast CLI start).
      const { startInspector } = await import('../ui/server/inspector-server.js');
      const style = styleFor(process.stdout);
      const inspector = await startInspector({ recording, listen: options.listen, diff: options.diff, allowRemote: options.allowRemote });
      warnIfReachable('inspector', options.listen, inspector.url);
      // Listen for the signals before announcing the address: a caller may signal right after it.
      const stopped = new Promise<NodeJS.Signals>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
      process.stdout.write(`inspector on ${inspector.url}\n`);
      process.stdout.write(style.dim('open it in a browser; Ctrl-C to stop') + '\n');
      const signal = await stopped;
      await inspector.close();
      process.stdout.write(`stopped (${signal})\n`);
      result.code = EXIT_OK;
    });
}
