import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onCleanup } from './cleanups.js';
import { deferForAgreement } from './agreement-pending.js';
import { folderMade } from './temp-dir-leftovers.js';

export interface TempDir {
  readonly dir: string;
  /** The path of `name` inside the folder. */
  file(name: string): string;
  /**
   * Removes the folder and everything in it; safe to call twice. A folder that holds a recording is
   * removed at the end of the test file instead, once the agreement check has read it (agreement-setup.ts).
   */
  cleanup(): void;
}

/** A fresh folder under the OS temp dir that the caller removes (e.g. one per file, in afterAll). */
export function tempDir(prefix = 'agent-proxy-test-'): TempDir {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  folderMade(dir);
  return {
    dir,
    file: (name) => join(dir, name),
    cleanup: () => {
      if (!deferForAgreement(dir)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh folder removed after the current test (the file calls useCleanups()). */
export function scratch(prefix?: string): TempDir {
  const dir = tempDir(prefix);
  onCleanup(() => dir.cleanup());
  return dir;
}
