// A V8 code cache for the CLI's own files (dist/**/*.cjs: the bundle chunks and the compiled validators) that
// holds what the run compiled, not only what was compiled at load: most of a small run's first-run cost is V8
// compiling functions lazily at their first call, which Node's compile cache (22.1+, written at load) does not
// keep. Each file is compiled through vm.Script with its entry's cachedData; a file that had no usable entry has
// its code serialized at the process's exit (script.createCachedData(), after the command ran) and written.
// Nothing here may break or slow a run: every failure leaves the file compiled as Node would, silently.
'use strict';
const Module = require('node:module');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

/** The package's dist/ folder: only its .cjs files are cached. */
const DIST = path.join(__dirname, '..', 'dist') + path.sep;
const ENTRY_FORMAT = 'agent-proxy code cache 1';
/** Set by tests: a line on stderr per cached file at exit (`accepted`, `rejected`, `missing`, `written`, `stale`). */
const REPORT = process.env.AGENT_PROXY_CODE_CACHE_REPORT === '1';

/**
 * The cache's folder, made 0700 and checked to be this user's own (nobody else may plant an entry): a
 * folder in NODE_COMPILE_CACHE when set (as Node's cache), else in the OS temp folder. Undefined when it
 * cannot be made or is not safe.
 */
function cacheFolder() {
  const base = process.env.NODE_COMPILE_CACHE || require('node:os').tmpdir();
  const uid = process.getuid?.();
  const folder = path.resolve(base, uid === undefined ? 'agent-proxy-code-cache' : `agent-proxy-code-cache-${uid}`);
  try {
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    const stats = fs.lstatSync(folder);
    if (!stats.isDirectory()) return undefined;
    // POSIX: this user's, and nobody else may write or list it. (Windows: the temp folder is the user's own.)
    if (uid !== undefined && (stats.uid !== uid || (stats.mode & 0o077) !== 0)) return undefined;
    return folder;
  } catch {
    return undefined;
  }
}

/** FNV-1a, 32 bits, as hex: an entry's file name from a chunk's stable path. */
function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/**
 * What an entry must match to be used: the cache's format, the Node (its V8) and the options V8 was started
 * with, the file's path and its identity on disk. Any write to a file changes its ctime, which no program can
 * set back (utimes sets mtime, and moves ctime to now), and a file replaced by a rename has another inode: so
 * device + inode + size + mtime + ctime (ns) tell a changed chunk without reading or hashing its bytes. V8 checks
 * its own version and flags again (and rejects a mismatch); it checks the source only by its length.
 */
function entryKey(filename, stats) {
  const options = `${process.execArgv.join(' ')}|${process.env.NODE_OPTIONS ?? ''}`;
  return `${ENTRY_FORMAT}\n${process.version} ${process.arch}\n${options}\n${filename}\n${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}\n`;
}

/**
 * An entry: the key, the CRC-32 of the data (8 hex digits and a newline: V8 does not check a cache's bytes,
 * and takes a corrupt one), then V8's cached data. The data, or undefined when the entry is missing, is
 * another key's, or is damaged.
 */
function readEntry(file, key) {
  let bytes;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return { status: 'missing' };
  }
  const keyBytes = Buffer.from(key);
  const dataStart = keyBytes.length + 9;
  if (bytes.length <= dataStart || !keyBytes.equals(bytes.subarray(0, keyBytes.length))) return { status: 'stale' };
  const data = bytes.subarray(dataStart);
  if (bytes.toString('latin1', keyBytes.length, dataStart) !== `${crc32(data).toString(16).padStart(8, '0')}\n`) return { status: 'stale' };
  return { status: 'found', data };
}

/** Writes an entry under a name of this process's, then renames it over the old one: a reader sees a whole entry. */
function writeEntry(file, key, data) {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temporary, Buffer.concat([Buffer.from(`${key}${crc32(data).toString(16).padStart(8, '0')}\n`), data]), { mode: 0o600, flag: 'wx' });
    fs.renameSync(temporary, file);
    return true;
  } catch {
    try {
      fs.unlinkSync(temporary);
    } catch {
      // Never made.
    }
    return false;
  }
}

/**
 * Removes the temporary entries of processes that are gone (one killed while it wrote at its exit), so
 * that they do not pile up: done by a run that writes, which reads the folder anyway rarely.
 */
function removeLeftovers(folder) {
  let names;
  try {
    names = fs.readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    const writer = /\.(\d+)\.tmp$/.exec(name);
    if (writer === null || Number(writer[1]) === process.pid || isRunning(Number(writer[1]))) continue;
    try {
      fs.unlinkSync(path.join(folder, name));
    } catch {
      // Removed meanwhile.
    }
  }
}

/** Whether process `pid` exists (EPERM: it does, another user's). */
function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** When this process started, on the clock file times are on (ms). */
const PROCESS_START_MS = BigInt(Math.floor(Date.now() - process.uptime() * 1000));

/** zlib.crc32 (Node 20.15 and later), set when the cache is turned on. */
let crc32;

/** The `require` Node hands a CommonJS module. */
function requireFor(module) {
  const require = (id) => module.require(id);
  require.resolve = (request, options) => Module._resolveFilename(request, module, false, options);
  require.resolve.paths = (request) => Module._resolveLookupPaths(request, module);
  require.main = process.mainModule;
  require.extensions = Module._extensions;
  require.cache = Module._cache;
  return require;
}

/**
 * Compiles the package's .cjs files with the cache from here on. Not when NODE_DISABLE_COMPILE_CACHE=1 (as
 * Node's cache), with source maps on or an inspector (Node's own _compile handles those), or when the folder
 * is not usable.
 */
function enableCodeCache() {
  if (process.env.NODE_DISABLE_COMPILE_CACHE === '1' || process.sourceMapsEnabled || process.execArgv.some((option) => option.startsWith('--inspect'))) return;
  crc32 = require('node:zlib').crc32;
  if (typeof crc32 !== 'function') return;
  const folder = cacheFolder();
  if (folder === undefined) return;
  const toWrite = [];
  const report = [];
  const compile = Module.prototype._compile;
  Module.prototype._compile = function compileWithCodeCache(content, filename) {
    if (!filename.startsWith(DIST) || !filename.endsWith('.cjs')) return compile.apply(this, arguments);
    let script;
    try {
      const stats = fs.statSync(filename, { bigint: true });
      const key = entryKey(filename, stats);
      // One entry per file, named by its path without the build's content hash (`-Hs5BUan2`): a new build
      // replaces the old build's entry instead of adding one.
      const file = path.join(folder, `${fnv1a(filename.replace(/-[\w-]{8}\.cjs$/, '.cjs'))}.${path.basename(filename).replace(/-[\w-]{8}\.cjs$/, '')}`);
      const entry = readEntry(file, key);
      // No import() callback: the build leaves no dynamic import() in a chunk (scripts/bundle-cli.mjs), as a
      // cached vm.Script loses it on Node 20 and Node's default one warns that it is experimental.
      script = new vm.Script(Module.wrap(content), { filename, cachedData: entry.data });
      const status = entry.status === 'found' ? (script.cachedDataRejected ? 'rejected' : 'accepted') : entry.status;
      // Node read `content` before this stat: a file changed since this process started may have changed
      // in between, and an entry made from the old text under the new file's key would be taken for it
      // (V8 checks a source only by its length). Its ctime says so, and cannot be set back.
      const changedDuringRun = stats.ctimeMs >= PROCESS_START_MS;
      if (status !== 'accepted' && !changedDuringRun) toWrite.push({ script, file, key, filename });
      if (REPORT) report.push(`${status} ${filename}`);
    } catch {
      // A syntax error is Node's to report, with its own message: compile as it does.
      return compile.apply(this, arguments);
    }
    const module = this;
    return script.runInThisContext({ displayErrors: true }).call(module.exports, module.exports, requireFor(module), module, filename, path.dirname(filename));
  };
  process.once('exit', () => {
    if (toWrite.length > 0) removeLeftovers(folder);
    for (const { script, file, key, filename } of toWrite) {
      let written = false;
      try {
        written = writeEntry(file, key, script.createCachedData());
      } catch {
        // No entry this time.
      }
      if (REPORT) report.push(`${written ? 'written' : 'not written'} ${filename}`);
    }
    if (REPORT) process.stderr.write(report.map((line) => `code cache: ${line}\n`).join(''));
  });
}

module.exports = { enableCodeCache };
