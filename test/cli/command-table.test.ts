/**
 * The CLI defines only the command it is asked to run (the others' options cost every start), so
 * each command must be found by the name it is invoked with, and help must still list them all.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS as TABLE } from '../../src/cli/main.js';
import { runBatch } from './cli-batch.js';
import type { CliResult } from './run-cli.js';

const COMMANDS = ['record', 'replay', 'fixture', 'show', 'findings', 'validate', 'diff', 'redrive', 'export', 'import', 'demo', 'view', 'ca'];

describe('the command table', () => {
  // Every help below in one batch of CLI runs (test/cli/cli-batch.ts): a process each would cost
  // ~0.3 s of CPU apiece. The program's help and the first command's, both ways, also run as
  // processes of their own, which must print the same.
  const runs = [['--help'], ['help'], ...COMMANDS.flatMap((name) => [[name, '--help'], ['help', name]])];
  let results: CliResult[] = [];
  beforeAll(async () => {
    results = await runBatch(runs, { real: [0, 1, 2, 3] });
  });
  /** What the batch printed for `args`. */
  const ran = (args: string[]): CliResult => results[runs.findIndex((run) => run.join(' ') === args.join(' '))];

  it('names each command as the command itself is named: a mismatch would define every command again', async () => {
    for (const [name, load] of Object.entries(TABLE)) expect((await load())({ code: 0 }).name()).toBe(name);
    expect(Object.keys(TABLE)).toEqual(COMMANDS);
  });

  it('lists every command in the program help, and in `help`', async () => {
    for (const args of [['--help'], ['help']]) {
      const { code, stdout } = ran(args);
      expect(code).toBe(0);
      const listed = [...stdout.matchAll(/^ {2}(\w+)/gm)].map((m) => m[1]).filter((name) => name !== 'help');
      expect(listed).toEqual(COMMANDS);
    }
  });

  it.each(COMMANDS)('runs `%s` when invoked by that name, and `help %s` too', async (name) => {
    const direct = ran([name, '--help']);
    expect(direct.code).toBe(0);
    expect(direct.stdout).toMatch(new RegExp(`^Usage: agent-proxy ${name} `));
    const viaHelp = ran(['help', name]);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toBe(direct.stdout);
  });
});
