// An experiment, not the CLI's: the build's files (dist/, better-sqlite3's JavaScript) compiled through vm.Script
// with a V8 code cache that is written at the process's exit, after the command ran, so it holds the functions
// compiled lazily during the run too (Node 22's module.enableCompileCache() writes what was compiled at load).
// A cache is keyed by the file's path and bytes and Node's version, and V8 rejects one made by another V8 or
// flags. bench/startup-split.js --code-cache-at-exit DIR preloads it (`node -r`), with DIR the cache folder.
const Module = require('node:module');
const vm = require('node:vm');
const fs = require('node:fs');
const path = require('node:path');
const { createHash } = require('node:crypto');

const DIR = process.env.CODE_CACHE_AT_EXIT_DIR;
fs.mkdirSync(DIR, { recursive: true });
const toWrite = [];
const compile = Module.prototype._compile;
Module.prototype._compile = function (content, filename) {
  if (!/[/\\](dist|better-sqlite3)[/\\]/.test(filename)) return compile.apply(this, arguments);
  const cacheFile = path.join(DIR, createHash('sha1').update(`${process.version}\0${filename}\0${content}`).digest('hex'));
  let cachedData;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    // Not made yet: made at exit.
  }
  const script = new vm.Script(Module.wrap(content), { filename, cachedData });
  if (cachedData === undefined || script.cachedDataRejected) toWrite.push([script, cacheFile]);
  const module = this;
  const require = (id) => module.require(id);
  require.resolve = (request, options) => Module._resolveFilename(request, module, false, options);
  require.cache = Module._cache;
  require.main = process.mainModule;
  return script.runInThisContext().call(module.exports, module.exports, require, module, filename, path.dirname(filename));
};
process.on('exit', () => {
  for (const [script, cacheFile] of toWrite) fs.writeFileSync(cacheFile, script.createCachedData());
});
