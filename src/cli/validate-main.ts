import { runCommands } from './command-runner.js';

/**
 * The program as `validate` alone, built into a bundle of its own (scripts/bundle-cli.mjs) that
 * bin/agent-proxy.js loads when `validate` is the command named: in the build of every command,
 * the modules `validate` shares with the others are split into ~30 small files. It defines
 * `validate` as main.ts does.
 */
export function main(argv: string[]): Promise<number> {
  return runCommands(argv, { validate: async () => (await import('./validate-command.js')).validateCommand });
}
