import { runCommands, type CommandTable } from './command-runner.js';

/**
 * Every command, by the name it is invoked with, loaded only when defined: a command's module
 * imports what its action needs, and loading all of them took ~10 ms of every start (each command's
 * action loads its heavy parts itself). @internal exported for its test.
 */
export const COMMANDS: CommandTable = {
  record: async () => (await import('./record-command.js')).recordCommand,
  replay: async () => (await import('./replay-command.js')).replayCommand,
  fixture: async () => (await import('./fixture-command.js')).fixtureCommand,
  show: async () => (await import('./show-command.js')).showCommand,
  findings: async () => (await import('./findings-command.js')).findingsCommand,
  validate: async () => (await import('./validate-command.js')).validateCommand,
  diff: async () => (await import('./diff-command.js')).diffCommand,
  redrive: async () => (await import('./redrive-command.js')).redriveCommand,
  export: async () => (await import('./export-command.js')).exportCommand,
  import: async () => (await import('./import-command.js')).importCommand,
  demo: async () => (await import('./demo-command.js')).demoCommand,
  view: async () => (await import('./view-command.js')).viewCommand,
  ca: async () => (await import('./ca-command.js')).caCommand,
};

/** Runs the CLI and resolves to the process exit code. */
export function main(argv: string[]): Promise<number> {
  return runCommands(argv, COMMANDS);
}
