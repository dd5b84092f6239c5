/**
 * What a user or a peer hands in is quoted back in error lines: escape sequences and bells in it must
 * reach the terminal escaped, or a flag's value could clear the screen the user reads the error on.
 */
import { describe, expect, it } from 'vitest';
import { LINE_PREFIX } from '../../src/core/program-name.js';
import { runToEnd } from '../hostile/cli-child.js';
import { runCli } from './run-cli.js';
import { AGUI_EXAMPLE } from './cli-fixtures.js';
import { useCleanups } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';

useCleanups();

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe('error lines escape the control characters they quote', () => {
  it('--fault with an escape sequence and a bell', async () => {
    const result = await runToEnd(['replay', AGUI_EXAMPLE, '--listen', '0', '--fault', 'cut=\u001b[2J\u0007boom']);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(CONTROL);
    expect(result.stderr).toBe(`${LINE_PREFIX}${result.stderr.slice(LINE_PREFIX.length).split('\n')[0]}\n`);
    expect(result.stderr).toContain("--fault 'cut=\\e[2J\\x07boom'");
  });

  it('AGENT_PROXY_MODE with an escape sequence', async () => {
    const result = await runCli(['fixture', scratch().file('f.db'), '--target', 'http://127.0.0.1:9', '--listen', '0'], {
      env: { AGENT_PROXY_MODE: '\u001b[2J\u001b]0;owned\u0007' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(CONTROL);
    expect(result.stderr).toContain('\\e[2J\\e]0;owned\\x07');
    expect(result.stderr.split('\n')).toHaveLength(2);
  });

  it('an unknown option whose name holds a control character (commander\'s own message)', async () => {
    const result = await runToEnd(['show', AGUI_EXAMPLE, '--x\u001b[31m']);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(CONTROL);
    expect(result.stderr).toContain("'--x\\e[31m'");
  });
});
