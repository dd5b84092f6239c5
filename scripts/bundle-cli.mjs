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
// The package itself (dist/index.js) and its worker threads stay unbundled ESM. Dependencies in
// node_modules and node: builtins are left as requires (a dynamic import() of a dependency stays an
// import()). Each module keeps seeing its own `import.meta.url` (the path it has under dist/), so
// files it finds beside itself (the compiled validators, the worker scripts, the inspector's page,
// package.json) are found from the bundle too.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { rolldown } from 'rolldown';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
const OUT = join(DIST, 'bundle');

/**
 * Relative specifiers are the project's own modules; bare ones and node: builtins stay imports, except
 * commander, which every command loads to read its arguments: bundled, its seven files are no longer
 * resolved and read one by one (see lazyChildProcess too); and fast-json-patch, which the AG-UI
 * module loads (`validate` of AG-UI, the recording worker): bundled, its package is not looked up in
 * node_modules nor its four files read one by one.
 */
const BUNDLED_PACKAGES = ['commander', 'fast-json-patch'];
const external = (id, importer) => importer !== undefined && !id.startsWith('.') && !isAbsolute(id) && !BUNDLED_PACKAGES.includes(id);

/**
 * commander requires node:child_process when it loads, for subcommands that are executables of their
 * own, which this CLI has none of: ~6 ms of CPU of every command's start on Node 20 (child_process
 * brings net, dgram and dns with it). Bundled, it requires it when it spawns one, if ever.
 */
const COMMANDER_CHILD_PROCESS = "const childProcess = require('node:child_process');";
const lazyChildProcess = {
  name: 'lazy-child-process',
  transform(code, id) {
    if (!id.split(sep).join('/').endsWith('/node_modules/commander/lib/command.js')) return null;
    // Fails the build rather than quietly loading child_process again after an update of commander.
    if (!code.includes(COMMANDER_CHILD_PROCESS)) throw new Error(`${id} no longer requires child_process as scripts/bundle-cli.mjs expects: update lazyChildProcess`);
    return { code: code.replace(COMMANDER_CHILD_PROCESS, "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };"), map: null };
  },
};

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
 * The CLI's worker threads are bundled too: `record`'s recording worker (its ~60 modules took longer
 * to load than the rest of the command), `import`'s thread and `diff`'s side scanner (started for
 * recordings of 32 MB and more), each of which otherwise loads its modules one by one through Node's
 * ES module loader. The bundled command starts the bundled worker, while the package API (unbundled)
 * keeps starting the unbundled one. The side scanner is one file of its own, sharing no chunk with
 * the commands (a worker loads its own copy of every module anyway): as one more entry of the CLI's
 * build it split the chunks `diff`, `show` and `replay` load into 3–4 more files.
 */
const WORKERS = [
  { name: 'recording-worker', module: 'record/open-recording-sink.js', specifier: "'./worker/recording-worker.js'", source: 'record/worker/recording-worker.js' },
  { name: 'import-worker', module: 'cli/import-command.js', specifier: "'./import-worker.js'", source: 'cli/import-worker.js' },
  { name: 'scan-worker', module: 'diff/scan-parallel.js', specifier: "'./scan-worker.js'", source: 'diff/scan-worker.js', ownFile: true },
];
const bundledWorkers = {
  name: 'bundled-workers',
  transform(code, id) {
    const worker = WORKERS.find((w) => id === join(DIST, w.module));
    if (worker === undefined) return null;
    // Fails the build rather than quietly starting the unbundled worker after a refactor.
    if (!code.includes(worker.specifier)) throw new Error(`${id} no longer names its worker as ${worker.specifier}: update scripts/bundle-cli.mjs`);
    // Resolved against the module's unbundled URL (one folder below dist/, see ownUrl).
    return { code: code.replace(worker.specifier, `'../bundle/${worker.name}.cjs'`), map: null };
  },
};

/**
 * The small modules of core/ and cli/ that most commands load (errors, verdict words, option parsers,
 * JSON and credential helpers) go into one shared chunk, instead of ~25 chunks of a few hundred bytes
 * each, one per set of commands that load them. A module joins only if it imports, when it loads,
 * nothing but builtins every command loads anyway and other modules that join: the chunk requires
 * no other chunk (no cycle between chunks) and no command loads more than these small helpers with it.
 * Wider (store/, net/, replay/ ... too), `validate` loaded ~8 ms more than it saved (bench/startup.js).
 */
const SHARED_MAX_MODULE = 10_000;
const SHARED_FOLDERS = /^(core|cli)\//;
const NOT_SHARED = /^cli\/(main|forward-child|import-worker|[^/]*-command)\.js$/;
const CHEAP_BUILTINS = new Set(['node:fs', 'node:path', 'node:url', 'node:os', 'node:util', 'node:events', 'node:stream', 'node:buffer', 'node:string_decoder']);
const STATIC_IMPORT = /^(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'|^import\s+'([^']+)'/gm;

function sharedModules() {
  const imports = new Map();
  for (const rel of readdirSync(DIST, { recursive: true }).map((f) => f.split(sep).join('/'))) {
    if (!rel.endsWith('.js') || !SHARED_FOLDERS.test(rel) || NOT_SHARED.test(rel)) continue;
    const code = readFileSync(join(DIST, rel), 'utf8');
    if (code.length <= SHARED_MAX_MODULE) imports.set(join(DIST, rel), [...code.matchAll(STATIC_IMPORT)].map((m) => m[1] ?? m[2]));
  }
  // Drops, until none is left to drop, every module that imports one outside the set.
  const shared = new Set(imports.keys());
  for (let dropped = true; dropped; ) {
    dropped = false;
    for (const file of shared) {
      const inSet = (spec) => (spec.startsWith('.') ? shared.has(join(dirname(file), spec)) : CHEAP_BUILTINS.has(spec));
      if (!imports.get(file).every(inSet)) dropped = shared.delete(file);
    }
  }
  return shared;
}
const SHARED = sharedModules();

/**
 * The modules of dist/ that `roots` (paths under dist/) import statically, themselves included, by
 * absolute path, as bundled: the catalog's summary imports nothing once it is its literal (below).
 */
function staticClosure(roots) {
  const found = new Set();
  const visit = (file) => {
    if (found.has(file)) return;
    found.add(file);
    if (file === CATALOG_SUMMARY_MODULE) return;
    for (const m of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      const spec = m[1] ?? m[2];
      if (spec.startsWith('.')) visit(join(dirname(file), spec));
    }
  };
  for (const root of roots) visit(join(DIST, root));
  return found;
}
const SHARED_GROUP = { name: 'shared', test: (id) => SHARED.has(id), minShareCount: 2, includeDependenciesRecursively: false };

/**
 * protocols/catalog-summary.js becomes its value, a literal computed here from the module itself as
 * compiled: what the CLI checks its options by and `record`'s capture thread tells bodies by, without
 * loading every protocol's facts at run time (~15 ms of the main thread's start on Node 20).
 */
const CATALOG_SUMMARY_MODULE = join(DIST, 'protocols/catalog-summary.js');
const { CATALOG_SUMMARY } = await import(pathToFileURL(CATALOG_SUMMARY_MODULE).href);
const catalogSummaryAtBuild = {
  name: 'catalog-summary-at-build',
  transform(code, id) {
    if (id !== CATALOG_SUMMARY_MODULE) return null;
    // Fails the build rather than quietly dropping an export the module gained.
    const exported = [...code.matchAll(/^export\s+(?:const|function|class|let)\s+(\w+)/gm)].map((m) => m[1]);
    if (exported.join() !== 'CATALOG_SUMMARY') throw new Error(`${id} exports ${exported.join(', ')}, not CATALOG_SUMMARY alone: update scripts/bundle-cli.mjs`);
    return { code: `export const CATALOG_SUMMARY = ${JSON.stringify(CATALOG_SUMMARY)};\n`, map: null };
  },
};

/**
 * Each protocol's full module (checker, schemas, libraries) is required when it is first asked for:
 * protocols/module-by-id.js reaches them only through functions, and its chunk's requires of other
 * chunks become objects that require their chunk at their first use. The recording worker then loads
 * the protocols its traffic is claimed by (an exchange no protocol claims loads none), not all ten:
 * ~25 ms of the CPU of a small `record` run with traffic on Node 20 (docs/performance.md).
 * What loads protocols/modules.js (every module at once) loads them all, as before. The chunk holds
 * that module alone (its own group), so no other module's code runs at its load; the worker, told by
 * PROTOCOL_MODULES_ON_FIRST_USE, skips the steps that load every module after it is ready.
 */
const MODULE_BY_ID = join(DIST, 'protocols/module-by-id.js');
const RECORDING_WORKER_MAIN = join(DIST, 'record/worker/recording-worker-main.js');
const ON_FIRST_USE_FLAG = 'const PROTOCOL_MODULES_ON_FIRST_USE = false;';
const CHUNK_REQUIRE = /^const (require_\w+) = require\(("\.\/[^"]+\.cjs")\);$/gm;
const REQUIRE_ON_FIRST_USE = `
function requireOnFirstUse$(load) {
	let loaded;
	const chunk = () => (loaded ??= load());
	return new Proxy({}, {
		get: (_, key) => chunk()[key],
		has: (_, key) => key in chunk(),
		ownKeys: () => Reflect.ownKeys(chunk()),
		getOwnPropertyDescriptor: (_, key) => {
			const descriptor = Reflect.getOwnPropertyDescriptor(chunk(), key);
			return descriptor && { ...descriptor, configurable: true };
		}
	});
}
`;
const MODULE_BY_ID_GROUP = { name: 'module-by-id', test: (id) => id === MODULE_BY_ID, includeDependenciesRecursively: false };
const protocolModulesOnFirstUse = {
  name: 'protocol-modules-on-first-use',
  transform(code, id) {
    if (id !== RECORDING_WORKER_MAIN) return null;
    if (!code.includes(ON_FIRST_USE_FLAG)) throw new Error(`${id} no longer declares ${ON_FIRST_USE_FLAG}: update scripts/bundle-cli.mjs`);
    return { code: code.replace(ON_FIRST_USE_FLAG, 'const PROTOCOL_MODULES_ON_FIRST_USE = true;'), map: null };
  },
  renderChunk(code, chunk) {
    // A worker built as one file of its own (the side scanner) has no chunk to require later.
    if (!chunk.moduleIds.includes(MODULE_BY_ID) || !chunk.isDynamicEntry && chunk.isEntry) return null;
    // Another module's code in the chunk could use a protocol's module as the chunk loads.
    if (chunk.moduleIds.length !== 1) throw new Error(`${MODULE_BY_ID} shares its chunk with ${chunk.moduleIds.length - 1} other modules: update scripts/bundle-cli.mjs`);
    let lazy = 0;
    const rewritten = code.replace(CHUNK_REQUIRE, (_, name, file) => {
      lazy += 1;
      return `const ${name} = requireOnFirstUse$(() => require(${file}));`;
    });
    if (lazy < 10) throw new Error(`${MODULE_BY_ID}'s chunk requires ${lazy} chunks, not one per protocol: update scripts/bundle-cli.mjs`);
    // A function declaration, hoisted: usable by the requires at the top.
    return { code: rewritten + REQUIRE_ON_FIRST_USE, map: null };
  },
};

/**
 * A package the bundle loads lazily with `import()` is required instead (each such package has a CommonJS
 * build: `@ag-ui/proto`'s `require` export). bin/code-cache.js compiles the chunks through vm.Script, whose
 * `import()` needs a loader callback that Node 20 loses when the code comes from a cache, and that prints an
 * ExperimentalWarning on every Node: a chunk with no `import()` left runs the same with its cache or without.
 * The build fails if one is left in the code (commander's JSDoc `@typedef { import(...) }` comments aside).
 */
const DYNAMIC_IMPORT = /\bimport\(("[^"./][^"]*")\)/g;
const requireForDynamicImport = {
  name: 'require-for-dynamic-import',
  renderChunk(code, chunk) {
    const rewritten = code.replace(DYNAMIC_IMPORT, (_, specifier) => `Promise.resolve().then(() => require(${specifier}))`);
    const left = rewritten.split('\n').filter((line) => /\bimport\(/.test(line) && !/^\s*\* @typedef \{ import\("\.\/[\w.-]+"\)\.\w+ \} \w+$/.test(line));
    if (left.length > 0) throw new Error(`${chunk.fileName} keeps a dynamic import() (${left[0].trim()}): bin/code-cache.js cannot cache it, update scripts/bundle-cli.mjs`);
    return rewritten === code ? null : { code: rewritten, map: null };
  },
};

rmSync(OUT, { recursive: true, force: true });
const entries = (workers) => Object.fromEntries(workers.map((w) => [w.name, join(DIST, w.source)]));
const inputOptions = {
  platform: 'node',
  external,
  plugins: [bundledWorkers, ownUrl, lazyChildProcess, catalogSummaryAtBuild, protocolModulesOnFirstUse, requireForDynamicImport],
  // An entry keeps its exports (main.cjs's `main`) and may export more: what the shared group needs.
  preserveEntrySignatures: 'allow-extension',
};
// ASCII only, without doc comments (licence comments kept): V8 holds a source with any character above U+00FF
// (a `…` in a string, a `→` in a doc comment) as two bytes a character, twice over while it compiles (the text
// read and the module's wrapped copy): `replay`'s 474 KB action chunk was ~1.9 MB of heap at each start. Now
// 319 KB held as one byte a character. Escapes keep every string's value; checkAscii (below) fails the build
// when a character is left (e.g. in a tagged template's raw text).
const outputOptions = { dir: OUT, format: 'cjs', entryFileNames: '[name].cjs', chunkFileNames: '[name]-[hash].cjs', charset: 'ascii', comments: { legal: true, annotation: false, jsdoc: false } };
const cli = await rolldown({ ...inputOptions, input: { main: join(DIST, 'cli/main.js'), ...entries(WORKERS.filter((w) => !w.ownFile)) } });
await cli.write({ ...outputOptions, codeSplitting: { groups: [SHARED_GROUP, MODULE_BY_ID_GROUP] } });
await cli.close();
// Each command in ONE_COMMAND_BUILDS is built again alone, into dist/bundle-<command>/ (one level
// below dist/, as ownUrl expects), from its own main (cli/<command>-main.js): the modules it loads are
// then split only where it loads them lazily, not by which other commands share them: `replay` to
// its first response requires 4 files of the bundle instead of 59, `validate` of an AG-UI file 5
// instead of 30. bin/agent-proxy.js loads
// that build when the command is the one named, the build of every command otherwise. Its worker
// threads are the main build's (bundledWorkers names them under dist/bundle/).
//
// Within it, what the command loads lazily is split off still; of that, the modules its action loads
// on every run (`firstLoads`: for `replay`, the HTTP replay's) are one chunk with all they import
// statically, less what the command's definition already loaded: a chunk that requires no chunk
// requiring it back, since each side is closed under its static imports.
const ONE_COMMAND_BUILDS = {
  replay: { firstLoads: ['replay/start-replay.js', 'record/start-miss-recorder.js', 'cli/replay-view.js'] },
  validate: { firstLoads: ['schema/schema-registry.js', 'validate/message-file.js', 'validate/judge-input.js', 'validate/report-json.js'] },
};
// bin/agent-proxy.js names the same commands to choose a build at start (without reading a file for
// it): the build fails rather than leave a build unused or the bin requiring one that was not made.
const binCommands = /const ONE_COMMAND_BUILDS = \[([^\]]*)\]/.exec(readFileSync(join(ROOT, 'bin/agent-proxy.js'), 'utf8'))?.[1];
if (binCommands === undefined || JSON.stringify(JSON.parse(`[${binCommands.replaceAll("'", '"')}]`)) !== JSON.stringify(Object.keys(ONE_COMMAND_BUILDS))) {
  throw new Error(`bin/agent-proxy.js's ONE_COMMAND_BUILDS (${binCommands}) must list ${Object.keys(ONE_COMMAND_BUILDS).join(', ')}, as scripts/bundle-cli.mjs builds them`);
}
for (const [command, { firstLoads }] of Object.entries(ONE_COMMAND_BUILDS)) {
  const dir = join(DIST, `bundle-${command}`);
  rmSync(dir, { recursive: true, force: true });
  // Fails the build rather than grouping modules the command no longer loads after a refactor.
  const commandModule = readFileSync(join(DIST, `cli/${command}-command.js`), 'utf8');
  for (const loaded of firstLoads) {
    const specifier = relative(join(DIST, 'cli'), join(DIST, loaded)).split(sep).join('/');
    if (!commandModule.includes(`import('${specifier.startsWith('.') ? specifier : `./${specifier}`}')`)) throw new Error(`cli/${command}-command.js no longer loads ${loaded}: update ONE_COMMAND_BUILDS in scripts/bundle-cli.mjs`);
  }
  const definition = staticClosure([`cli/${command}-main.js`, `cli/${command}-command.js`]);
  const action = new Set([...staticClosure(firstLoads)].filter((id) => !definition.has(id)));
  const definitionGroup = { name: `${command}-definition`, test: (id) => definition.has(id), includeDependenciesRecursively: false };
  const actionGroup = { name: `${command}-action`, test: (id) => action.has(id), includeDependenciesRecursively: false };
  const alone = await rolldown({ ...inputOptions, input: { main: join(DIST, `cli/${command}-main.js`) } });
  await alone.write({ ...outputOptions, dir, codeSplitting: { groups: [MODULE_BY_ID_GROUP, definitionGroup, actionGroup] } });
  await alone.close();
}
for (const worker of WORKERS.filter((w) => w.ownFile)) {
  const alone = await rolldown({ ...inputOptions, input: entries([worker]) });
  await alone.write({ ...outputOptions, codeSplitting: false });
  await alone.close();
}

/** Fails the build if a chunk of the CLI's builds holds a non-ASCII character (see outputOptions). */
function checkAscii(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = join(dir, entry.name);
    if (entry.isDirectory()) checkAscii(file);
    else if (entry.name.endsWith('.cjs')) {
      const at = readFileSync(file).findIndex((byte) => byte > 0x7f);
      if (at >= 0) throw new Error(`${relative(ROOT, file)} holds a non-ASCII character at byte ${at}: require() would read it as a string of two bytes a character; escape it, see outputOptions in scripts/bundle-cli.mjs`);
    }
  }
}
for (const entry of readdirSync(DIST, { withFileTypes: true })) if (entry.isDirectory() && /^bundle(-|$)/.test(entry.name)) checkAscii(join(DIST, entry.name));
