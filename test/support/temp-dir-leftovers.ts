/**
 * Every folder tempDir() made, so that a test file that leaves one behind fails
 * (temp-dir-setup.ts checks when the file ends, once the agreement check has removed the folders it
 * kept). Folders made while a file was collected but whose tests were all skipped are on the list
 * too: vitest runs no hook of such a file, so they are found by the next file of the worker, and
 * named with the file that made them.
 */
import { existsSync } from 'node:fs';
import { expect } from 'vitest';

const made: Array<{ dir: string; file: string }> = [];

export function folderMade(dir: string): void {
  made.push({ dir, file: expect.getState().testPath ?? '(no test file)' });
}

/** The folders made since the last takeLeftoverFolders() that still exist, each with the test file that made it. */
export function leftoverFolders(): Array<{ dir: string; file: string }> {
  return made.filter(({ dir }) => existsSync(dir));
}

/** leftoverFolders(), and the list starts again empty. */
export function takeLeftoverFolders(): Array<{ dir: string; file: string }> {
  return made.splice(0).filter(({ dir }) => existsSync(dir));
}
