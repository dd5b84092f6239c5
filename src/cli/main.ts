import { Command, CommanderError } from 'commander';
import { TOOL_VERSION } from '../core/version.js';
import { LINE_PREFIX, PROGRAM_NAME } from '../core/program-name.js';
import { EXIT_OK, EXIT_USAGE, errorLine, oneLine } from './exit-codes.js';
import type { CommandResult } from './command-result.js';
import { validateCommand } from './validate-command.js';
import { recordCommand } from './record-command.js';
import { showCommand } from './show-command.js';
import { findingsCommand } from './findings-command.js';
import { replayCommand } from './replay-command.js';
import { fixtureCommand } from './fixture-command.js';
import { diffCommand } from './diff-command.js';
import { redriveCommand } from './redrive-command.js';
import { exportCommand } from './export-command.js';
import { importCommand } from './import-command.js';
import { demoCommand } from './demo-command.js';
import { viewCommand } from './view-command.js';
import { caCommand } from './ca-command.js';

/**
 * Argument errors (unknown option, missing argument, a value outside the choices) in the voice of
 * every other error: one line that begins with the program's name, instead of commander's `error:`
 * and its "(Did you mean …?)" on a line of its own.
 */
const ONE_VOICE = {
  outputError: (message: string, write: (text: string) => void) => write(usageLine(message)),
};

function usageLine(commanderMessage: string): string {
  return `${LINE_PREFIX}${oneLine(commanderMessage.replace(/^error: /, ''))}\n`;
}

/** Every command, by the name it is invoked with. @internal exported for its test. */
export const COMMANDS: Record<string, (result: CommandResult) => Command> = {
  record: recordCommand,
  replay: replayCommand,
  fixture: fixtureCommand,
  show: showCommand,
  findings: findingsCommand,
  validate: validateCommand,
  diff: diffCommand,
  redrive: redriveCommand,
  export: exportCommand,
  import: importCommand,
  demo: demoCommand,
  view: viewCommand,
  ca: caCommand,
};

/**
 * The commands to define for `argv`: the one it names, or all of them (for help, a typo's
 * suggestion, a bare invocation). Defining the others' options would take ~3 ms of every start.
 */
function commandsFor(argv: string[]): string[] {
  const named = argv[2];
  return named !== undefined && Object.hasOwn(COMMANDS, named) ? [named] : Object.keys(COMMANDS);
}

/** Runs the CLI and resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  // `agent-proxy show … | head` closes our stdout early: that ends the output, it is not a crash.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  const result: CommandResult = { code: EXIT_OK };
  const program = new Command(PROGRAM_NAME)
    .description('record, replay, diff and validate AI-agent protocol traffic (AG-UI, Pi daemon, Pi RPC, ACP)')
    .version(TOOL_VERSION)
    .exitOverride()
    .configureOutput(ONE_VOICE);
  // addCommand does not pass these settings on (only .command() does): each subcommand gets them here.
  for (const name of commandsFor(argv)) program.addCommand(COMMANDS[name](result).exitOverride().configureOutput(ONE_VOICE));
  try {
    await program.parseAsync(argv);
    return result.code;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through here with code 0.
      return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    process.stderr.write(errorLine(error) + '\n');
    return EXIT_USAGE;
  }
}
