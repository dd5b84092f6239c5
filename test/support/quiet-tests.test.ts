/**
 * A test run prints vitest's report and nothing else: no test or helper of test/ writes to the
 * console of the test process. What a test wants to say goes into its assertion's message, shown
 * when it fails. Code that runs in a child (a script in a string, a stand-in agent's .mjs) is not
 * the test process and may print: the children's output is piped to the tests that read it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO } from '../cli/run-cli.js';

/** The two that may print, each for a reason the developer guide gives. */
const ALLOWED = new Set([
  // The report of a failed test: what a wait was still waiting for.
  'test/support/waits.ts',
  // The one line that says test/conformance/ is skipped without ../shared.
  'test/support/corpus-notice.ts',
]);

const CONSOLE_METHODS = new Set(['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir', 'table']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `console.log(…)`, `process.stderr.write(…)` and the like, called in the file's own code (not in a string). */
function consoleWrites(name: string, text: string): string[] {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const callee = node.expression.getText(source);
      const method = node.expression.name.text;
      const isConsole = ts.isIdentifier(node.expression.expression) && node.expression.expression.text === 'console' && CONSOLE_METHODS.has(method);
      if (isConsole || /^process\.(stdout|stderr)\.write$/.test(callee)) {
        found.push(`${name}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${callee}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('a quiet test run', () => {
  it('no test or test helper writes to the console of the test process', () => {
    const files = sourceFiles(join(REPO, 'test')).filter((f) => !ALLOWED.has(relative(REPO, f)));
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((file) => consoleWrites(relative(REPO, file), readFileSync(file, 'utf8')))).toEqual([]);
  });

  it('the check sees a console write in code, and not one in a child script', () => {
    const probe = 'console.info(`kill -9: enqueued`);\nconst child = `process.stdout.write("x")`;\nprocess.stderr.write("y");\n';
    expect(consoleWrites('probe.ts', probe)).toEqual(['probe.ts:1: console.info', 'probe.ts:3: process.stderr.write']);
  });
});
