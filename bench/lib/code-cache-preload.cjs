// Preloaded (`node -r`) by bench/startup-floor.js for a floor program's cached variant, and by bench/startup-split.js
// --code-cache-at-exit: every CommonJS file the process compiles (the floor itself or the CLI's bin, better-sqlite3's
// JavaScript, the compiled validators) goes through vm.Script with V8's code cache from CODE_CACHE_PRELOAD_DIR, and a
// file without one (or whose cache V8 rejects) gets it written
// at exit, after the run, so it holds the functions compiled while the program ran, not only at load. The least a
// code cache adds: node:vm (already in Node's snapshot) and a file read per module, no hashing (V8 checks the
// source's length and its own version and flags, and the bench's files do not change between its runs).
'use strict';
const Module = require('node:module');
const { Script } = require('node:vm');
const { mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

const DIR = process.env.CODE_CACHE_PRELOAD_DIR;
const toWrite = [];
const compile = Module.prototype._compile;
Module.prototype._compile = function (content, filename) {
  // A file with a `#!` line (the CLI's bin) is Node's to compile: wrapped, the line would not be first.
  if (content.startsWith('#!')) return compile.apply(this, arguments);
  const cacheFile = join(DIR, `${process.version}${filename.replace(/[^A-Za-z0-9.-]/g, '_')}`);
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // Not made yet: made at exit.
  }
  const script = new Script(Module.wrap(content), { filename, cachedData });
  if (cachedData === undefined || script.cachedDataRejected) toWrite.push([script, cacheFile]);
  const module = this;
  const require = (id) => module.require(id);
  require.resolve = (request, options) => Module._resolveFilename(request, module, false, options);
  require.cache = Module._cache;
  require.main = process.mainModule;
  return script.runInThisContext().call(module.exports, module.exports, require, module, filename, dirname(filename));
};
process.on('exit', () => {
  if (toWrite.length > 0) mkdirSync(DIR, { recursive: true });
  for (const [script, cacheFile] of toWrite) writeFileSync(cacheFile, script.createCachedData());
});
