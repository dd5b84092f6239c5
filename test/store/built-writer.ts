import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The built RecordingWriter, for tests whose child processes write recordings (plain node runs no TypeScript). */
export const BUILT_WRITER = join(ROOT, 'dist', 'store', 'recording-writer.js');
export const BUILT_WRITER_URL = pathToFileURL(BUILT_WRITER).href;

/** Builds src/store (and the core files it imports) into dist when dist is missing or older than the sources. */
export function ensureBuilt(scratch: string): void {
  const sources = ['store', 'core'].flatMap((dir) =>
    readdirSync(join(ROOT, 'src', dir))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => ({ src: join(ROOT, 'src', dir, f), out: join(ROOT, 'dist', dir, f.replace(/\.ts$/, '.js')) })),
  );
  const stale = sources.some(({ src, out }) => !existsSync(out) || statSync(out).mtimeMs < statSync(src).mtimeMs);
  if (!stale) return;
  // Only the store and what it imports, so work in progress elsewhere in src cannot block these tests.
  const config = join(scratch, 'tsconfig.store.json');
  writeFileSync(
    config,
    JSON.stringify({
      extends: join(ROOT, 'tsconfig.json'),
      // Type roots resolve from the config's folder, which is a temp dir here.
      compilerOptions: { typeRoots: [join(ROOT, 'node_modules/@types')] },
      include: [join(ROOT, 'src/store/*.ts')],
    }),
  );
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', config], { cwd: ROOT, stdio: 'pipe' });
}
