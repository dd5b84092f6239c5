import { Command, CommanderError } from 'commander';
import { TOOL_VERSION } from '../core/version.js';
import { LINE_PREFIX, PROGRAM_NAME } from '../core/program-name.js';
import { EXIT_OK, EXIT_USAGE, errorLine, oneLine } from './exit-codes.js';
import type { CommandResult } from './command-result.js';

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

/** What a command module gives: its commander definition, bound to where it leaves its exit code. */
export type CommandFactory = (result: CommandResult) => Command;

/** Commands by the name each is invoked with, each module loaded only when its command is defined. */
export type CommandTable = Record<string, () => Promise<CommandFactory>>;

/**
 * The commands to define for `argv`: the one it names, or all of them (for help, a typo's
 * suggestion, a bare invocation). Defining the others' options would take ~3 ms of every start.
 */
function commandsFor(argv: string[], commands: CommandTable): string[] {
  const named = argv[2];
  return named !== undefined && Object.hasOwn(commands, named) ? [named] : Object.keys(commands);
}

/** Runs the program with `commands` and resolves to the process exit code. */
export async function runCommands(argv: string[], commands: CommandTable): Promise<number> {
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
  const factories = await Promise.all(commandsFor(argv, commands).map((name) => commands[name]()));
  // addCommand does not pass these settings on (only .command() does): each subcommand gets them here.
  for (const make of factories) program.addCommand(make(result).exitOverride().configureOutput(ONE_VOICE));
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
