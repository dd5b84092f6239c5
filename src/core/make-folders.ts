import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * `mkdirSync(dir, { recursive: true })`, one level at a time: Node's own recursive form never
 * returns when a level cannot be made for lack of a parent that does exist (a folder under /proc,
 * which refuses new entries with ENOENT), so `record --out /proc/x/a.db` hung instead of failing.
 * Here a level that still fails once its parent is there throws that error.
 */
export function makeFolders(dir: string, mode?: number): void {
  try {
    mkdirSync(dir, { mode });
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && statSync(dir).isDirectory()) return;
    const parent = dirname(dir);
    if (code !== 'ENOENT' || parent === dir) throw error;
  }
  makeFolders(dirname(dir), mode);
  try {
    mkdirSync(dir, { mode });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST' && statSync(dir).isDirectory()) return;
    throw error;
  }
}
