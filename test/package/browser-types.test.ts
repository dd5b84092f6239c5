/**
 * The Node build (tsconfig.json) has no DOM lib, so a Node module that touches `document` fails to
 * compile; only the inspector page's scripts (src/ui/web, their own tsconfig) are built for the
 * browser. The checks run the real compiler over the real configs, in this process through the
 * compiler's API: a `tsc` process per check parsed the same ~900 files again each time (~9.5 s of
 * CPU for four runs, against ~6 s for the two programs here).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, parse } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from '../cli/run-cli.js';

const scratch = mkdtempSync(join(tmpdir(), 'agent-proxy-browser-types-'));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Two Node modules, type-checked as part of the Node program: one uses `document`, one `process`. */
const PROBES = {
  document: join(scratch, 'document-probe.ts'),
  process: join(scratch, 'process-probe.ts'),
};
writeFileSync(PROBES.document, 'export const title: string = document.title;\n');
writeFileSync(PROBES.process, 'export const title: string = process.title;\n');
writeFileSync(join(scratch, 'package.json'), JSON.stringify({ type: 'module' }));

/** A config's program as `tsc -p` makes it (not type-checked until asked), with `extraRoots` as files of its own. */
function program(config: string, extraRoots: string[] = []): ts.Program {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(REPO, config), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  });
  if (!parsed) throw new Error(`${config} could not be read`);
  expect(parsed.errors).toEqual([]);
  // Nothing is written, and the probes sit outside src/: rootDir is widened to hold them.
  const options = extraRoots.length === 0 ? parsed.options : { ...parsed.options, noEmit: true, rootDir: parse(REPO).root };
  return ts.createProgram({ rootNames: [...parsed.fileNames, ...extraRoots], options });
}

/** Every file in a program, libs included, as `tsc --listFilesOnly` prints them. */
const filesOf = (p: ts.Program, leaveOut: string[] = []) => p.getSourceFiles().map((f) => f.fileName).filter((f) => !leaveOut.includes(f));

/** What `tsc` prints about one file of a program: its errors and the program's own (options, globals), one per line. */
function errorsIn(p: ts.Program, file: string): string {
  const source = p.getSourceFile(file);
  // Without a file, the compiler would report on the whole program.
  if (source === undefined) throw new Error(`${file} is not in the program`);
  return ts.formatDiagnostics(ts.getPreEmitDiagnostics(p, source), { getCanonicalFileName: (f) => f, getCurrentDirectory: () => scratch, getNewLine: () => '\n' });
}

const isDomLib = (file: string) => /[/\\]lib\.dom[.a-z]*\.d\.ts$/.test(file);

describe('browser types stay out of the Node build', () => {
  // The Node program of tsconfig.json, with the two probes as modules of it.
  let node: ts.Program | undefined;
  const nodeProgram = () => (node ??= program('tsconfig.json', Object.values(PROBES)));
  afterAll(() => (node = undefined));

  it('the Node program has no DOM lib and none of the page scripts, from its config or any file in it', () => {
    const files = filesOf(nodeProgram(), Object.values(PROBES));
    expect(files.some((f) => f.endsWith('/src/index.ts'))).toBe(true);
    expect(files.filter(isDomLib)).toEqual([]);
    expect(files.filter((f) => f.includes('/src/ui/web/'))).toEqual([]);
  });

  it('a Node module that uses `document` does not compile; one that uses `process` does', () => {
    const browser = errorsIn(nodeProgram(), PROBES.document);
    expect(browser).toMatch(/^document-probe\.ts\(1,\d+\): error TS2584: Cannot find name 'document'/);
    expect(browser.trim().split('\n')).toHaveLength(1);

    expect(errorsIn(nodeProgram(), PROBES.process)).toBe('');
  });

  it('the page scripts are built with the DOM lib and without Node types', () => {
    const files = filesOf(program('src/ui/web/tsconfig.json'));
    expect(files.some((f) => f.endsWith('/src/ui/web/app.ts'))).toBe(true);
    expect(files.filter(isDomLib)).not.toEqual([]);
    expect(files.filter((f) => f.includes('/@types/node/'))).toEqual([]);
  });
});
