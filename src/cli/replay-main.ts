import { runCommands } from './command-runner.js';

/**
 * The program as `replay` alone, built into a bundle of its own (scripts/bundle-cli.mjs) that
 * bin/agent-proxy.js loads when `replay` is the command named: in the build of every command,
 * the modules `replay` shares with the others are split into ~60 small files, each resolved, read
 * and compiled apart. It defines `replay` as main.ts does.
 */
export function main(argv: string[]): Promise<number> {
  return runCommands(argv, { replay: async () => (await import('./replay-command.js')).replayCommand });
}
