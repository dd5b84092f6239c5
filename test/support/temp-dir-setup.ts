/**
 * Runs in every test file (vitest setupFiles), listed before agreement-setup.ts so that its "after"
 * hook runs after the agreement check has removed the folders it kept: a folder tempDir() made that
 * still exists then was left behind (a cleanup never registered, or registered in a hook that does not
 * run), and the file fails, naming it. The folder is removed, so that one leak is reported once.
 */
import { rmSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll } from 'vitest';
import { takeLeftoverFolders } from './temp-dir-leftovers.js';

afterAll(() => {
  const left = takeLeftoverFolders();
  for (const { dir } of left) rmSync(dir, { recursive: true, force: true });
  if (left.length > 0) {
    throw new Error(`${left.length} temp folder(s) left behind when the file ended:\n${left.map(({ dir, file }) => `  ${dir} (made by ${relative(process.cwd(), file)})`).join('\n')}`);
  }
});
