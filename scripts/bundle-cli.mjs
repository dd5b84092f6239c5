// Bundles the CLI (dist/cli/main.js and everything it imports from dist/) into a few modules under
// dist/bundle/, a step of `npm run build` after tsc. Node's ESM loader spends about 40 ms resolving
// and linking the ~200 modules a command loads one by one; a bundle is a handful of files, which is
// what brings `replay` and `validate` under their start-up targets (bench/startup.js).
//
// The package itself (dist/index.js) and the worker threads stay unbundled. Dependencies in
// node_modules and node: builtins are left as imports. Each module keeps seeing its own
// `import.meta.url` (the path it has under dist/), so files it finds beside itself (the compiled
// validators, the worker scripts, the inspector's page, package.json) are found from the bundle too.
import { rmSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
const OUT = join(DIST, 'bundle');

/** Relative specifiers are the project's own modules; bare ones and node: builtins stay imports. */
const external = (id, importer) => importer !== undefined && !id.startsWith('.') && !isAbsolute(id);

/** Rewrites `import.meta.url` in a module of dist/ to the URL that module has unbundled. */
const ownUrl = {
  name: 'own-import-meta-url',
  transform(code, id) {
    // Only the project's modules: the bundler's own runtime helpers mean the bundle's URL.
    if (!id.startsWith(DIST + sep) || !code.includes('import.meta.url')) return null;
    // Chunks are written to dist/bundle/, one level below dist/ like every module they hold.
    const fromOut = relative(OUT, id).split(sep).join('/');
    return { code: code.replaceAll('import.meta.url', `new URL(${JSON.stringify(fromOut)}, import.meta.url).href`), map: null };
  },
};

rmSync(OUT, { recursive: true, force: true });
const bundle = await rolldown({ input: { main: join(DIST, 'cli/main.js') }, platform: 'node', external, plugins: [ownUrl] });
await bundle.write({ dir: OUT, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' });
await bundle.close();
