// Bundles the CLI (dist/cli/main.js and everything it imports from dist/) into a few CommonJS
// modules under dist/bundle/, a step of `npm run build` after tsc. Node's ESM loader spends about
// 40 ms resolving and linking the ~200 modules a command loads one by one; a bundle is a handful of
// files, which is what brings `replay` and `validate` under their start-up targets (bench/startup.js).
//
// CommonJS, not ESM: the same chunks start ~15 ms sooner through require() than through the ESM
// loader, which builds, links and evaluates its module graph asynchronously (bench/startup.js
// --compare, `replay` 126 → 111 ms and `validate` 139 → 122 ms on Node 20). The sources stay ESM;
// only this build output is CommonJS, and bin/agent-proxy.js requires it.
//
// The package itself (dist/index.js) and the worker threads stay unbundled ESM. Dependencies in
// node_modules and node: builtins are left as requires (a dynamic import() of a dependency stays an
// import()). Each module keeps seeing its own `import.meta.url` (the path it has under dist/), so
// files it finds beside itself (the compiled validators, the worker scripts, the inspector's page,
// package.json) are found from the bundle too.
import { rmSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
const OUT = join(DIST, 'bundle');

/** Relative specifiers are the project's own modules; bare ones and node: builtins stay imports. */
const external = (id, importer) => importer !== undefined && !id.startsWith('.') && !isAbsolute(id);

/**
 * Rewrites `import.meta.url` in a module of dist/ to the URL that module has unbundled, found from
 * the chunk's own __dirname. Builtins are reached through process.getBuiltinModule, not require: a
 * module may declare a `require` of its own (createRequire), which the bundler would rename.
 */
const ownUrl = {
  name: 'own-import-meta-url',
  transform(code, id) {
    if (!id.startsWith(DIST + sep) || !code.includes('import.meta.url')) return null;
    // Chunks are written to dist/bundle/, one level below dist/ like every module they hold.
    const fromOut = relative(OUT, id).split(sep).join('/');
    const url = `process.getBuiltinModule('node:url').pathToFileURL(process.getBuiltinModule('node:path').join(__dirname, ${JSON.stringify(fromOut)})).href`;
    return { code: code.replaceAll('import.meta.url', url), map: null };
  },
};

/**
 * The recording worker is bundled too (`proxy record` starts it, and its ~60 modules took longer to
 * load than the rest of the command): the bundled capture code starts the bundled worker, while
 * the package API (unbundled) keeps starting the unbundled one.
 */
const WORKER_SPECIFIER = "'./worker/recording-worker.js'";
const bundledWorker = {
  name: 'bundled-recording-worker',
  transform(code, id) {
    if (id !== join(DIST, 'record/open-recording-sink.js')) return null;
    // Fails the build rather than quietly starting the unbundled worker after a refactor.
    if (!code.includes(WORKER_SPECIFIER)) throw new Error(`${id} no longer names the worker as ${WORKER_SPECIFIER}: update scripts/bundle-cli.mjs`);
    // Resolved against the module's unbundled URL (dist/record/), see ownUrl.
    return { code: code.replace(WORKER_SPECIFIER, "'../bundle/recording-worker.cjs'"), map: null };
  },
};

rmSync(OUT, { recursive: true, force: true });
const bundle = await rolldown({
  input: { main: join(DIST, 'cli/main.js'), 'recording-worker': join(DIST, 'record/worker/recording-worker.js') },
  platform: 'node',
  external,
  plugins: [bundledWorker, ownUrl],
});
await bundle.write({ dir: OUT, format: 'cjs', entryFileNames: '[name].cjs', chunkFileNames: '[name]-[hash].cjs' });
await bundle.close();
