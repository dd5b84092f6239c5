import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellWord } from '../core/shell-word.js';

/** The package's own folder: this file is dist/cli/invocation.js (src/cli/… under vitest). */
const PACKAGE_DIR = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The command a user can type in `cwd` to run this CLI again, for the commands it suggests.
 * Installed as a package (a project's dependency, or globally) it is `npx agent-proxy`, which finds
 * the project's or the global bin. Run from a clone it is `node` and the clone's bin script, by a
 * path that works from `cwd` (relative below it, absolute elsewhere).
 */
export function commandFrom(cwd: string, packageDir: string = PACKAGE_DIR): string {
  if (packageDir.split(/[\\/]/).includes('node_modules')) return 'npx agent-proxy';
  const bin = join(packageDir, 'bin', 'agent-proxy.js');
  const rel = relative(cwd, bin);
  return `node ${shellWord(rel.startsWith('..') || isAbsolute(rel) ? bin : rel)}`;
}
