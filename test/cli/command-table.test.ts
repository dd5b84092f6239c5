/**
 * The CLI defines only the command it is asked to run (the others' options cost every start), so
 * each command must be found by the name it is invoked with, and help must still list them all.
 */
import { describe, expect, it } from 'vitest';
import { COMMANDS as TABLE } from '../../src/cli/main.js';
import { runCli } from './run-cli.js';

const COMMANDS = ['record', 'replay', 'fixture', 'show', 'findings', 'validate', 'diff', 'redrive', 'export', 'import', 'demo', 'view', 'ca'];

describe('the command table', () => {
  it('names each command as the command itself is named: a mismatch would define every command again', async () => {
    for (const [name, load] of Object.entries(TABLE)) expect((await load())({ code: 0 }).name()).toBe(name);
    expect(Object.keys(TABLE)).toEqual(COMMANDS);
  });

  it('lists every command in the program help, and in `help`', async () => {
    for (const args of [['--help'], ['help']]) {
      const { code, stdout } = await runCli(args);
      expect(code).toBe(0);
      const listed = [...stdout.matchAll(/^ {2}(\w+)/gm)].map((m) => m[1]).filter((name) => name !== 'help');
      expect(listed).toEqual(COMMANDS);
    }
  });

  it.each(COMMANDS)('runs `%s` when invoked by that name, and `help %s` too', async (name) => {
    const direct = await runCli([name, '--help']);
    expect(direct.code).toBe(0);
    expect(direct.stdout).toMatch(new RegExp(`^Usage: agent-proxy ${name} `));
    const viaHelp = await runCli(['help', name]);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toBe(direct.stdout);
  });
});
