/**
 * The Node build (tsconfig.json) has no DOM lib, so a Node module that touches `document` fails to
 * compile; only the inspector page's scripts (src/ui/web, their own tsconfig) are built for the
 * browser. The checks run the real compiler over the real configs.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from '../cli/run-cli.js';

const TSC = join(REPO, 'node_modules/typescript/bin/tsc');
const scratch = mkdtempSync(join(tmpdir(), 'agent-proxy-browser-types-'));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function tsc(args: string[]): { code: number | null; output: string } {
  const run = spawnSync(process.execPath, [TSC, ...args], { cwd: REPO, encoding: 'utf8' });
  return { code: run.status, output: run.stdout + run.stderr };
}

/** Every file in a config's program, libs included (parsed, not type-checked). */
function programFiles(config: string): string[] {
  const { code, output } = tsc(['-p', config, '--listFilesOnly']);
  expect(code, output).toBe(0);
  return output.split('\n').filter((line) => line.trim() !== '');
}

/** A one-file project that extends the root tsconfig.json, type-checked. */
function compileAgainstRootConfig(name: string, source: string): { code: number | null; output: string } {
  const dir = mkdtempSync(join(scratch, `${name}-`));
  writeFileSync(join(dir, 'probe.ts'), source);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: join(REPO, 'tsconfig.json'),
      // Type roots resolve from the config's folder, which is a temp dir here.
      compilerOptions: { noEmit: true, rootDir: dir, typeRoots: [join(REPO, 'node_modules/@types')] },
      include: [join(dir, 'probe.ts')],
    }),
  );
  return tsc(['-p', join(dir, 'tsconfig.json')]);
}

const isDomLib = (file: string) => /[/\\]lib\.dom[.a-z]*\.d\.ts$/.test(file);

describe('browser types stay out of the Node build', () => {
  it('the Node program has no DOM lib and none of the page scripts, from its config or any file in it', () => {
    const files = programFiles('tsconfig.json');
    expect(files.some((f) => f.endsWith('/src/index.ts'))).toBe(true);
    expect(files.filter(isDomLib)).toEqual([]);
    expect(files.filter((f) => f.includes('/src/ui/web/'))).toEqual([]);
  });

  it('a Node module that uses `document` does not compile; one that uses `process` does', () => {
    const browser = compileAgainstRootConfig('document', 'export const title: string = document.title;\n');
    expect(browser.code, browser.output).not.toBe(0);
    expect(browser.output).toMatch(/probe\.ts\(1,\d+\): error TS2584: Cannot find name 'document'/);

    const node = compileAgainstRootConfig('process', 'export const title: string = process.title;\n');
    expect(node.output).toBe('');
    expect(node.code).toBe(0);
  });

  it('the page scripts are built with the DOM lib and without Node types', () => {
    const files = programFiles('src/ui/web/tsconfig.json');
    expect(files.some((f) => f.endsWith('/src/ui/web/app.ts'))).toBe(true);
    expect(files.filter(isDomLib)).not.toEqual([]);
    expect(files.filter((f) => f.includes('/@types/node/'))).toEqual([]);
  });
});
