#!/usr/bin/env node
// CommonJS (bin/package.json says so): an ES module as the entry point starts Node's ESM loader,
// ~5 ms of every start that nothing of the CLI needs.
const { enableCompileCache } = require('node:module');

// Node 22.1 and later keep the compiled code of the CLI's modules on disk (in the OS temp folder,
// or NODE_COMPILE_CACHE) and reuse it on the next start, about 10 ms of each; Node 20 has no such
// cache. It must be on before the bundle loads. A folder it cannot make or write is left out.
enableCompileCache?.();
// The CLI's own files (the bundle's chunks, the compiled validators) get a cache of their own that also
// holds the functions a run compiled after load (./code-cache.js): ~12-20 ms of CPU less per `validate`
// or `replay` on Node 20, ~5-11 ms on Node 22 and 24 beside Node's cache, which keeps better-sqlite3's files.
require('./code-cache.js').enableCodeCache();
// The CLI runs from its bundle (scripts/bundle-cli.mjs): a handful of CommonJS modules to require
// instead of ~200 ES modules to import. `replay` and `validate` each have a build of their own
// (dist/bundle-<command>/): 4 and 5 files to require where the build of every command splits the
// same modules into 59 and 30, ~10 and ~5 ms of CPU of each start on Node 20.
// The same list as scripts/bundle-cli.mjs's, which the build checks.
const ONE_COMMAND_BUILDS = ['replay', 'validate'];
const { main } = require(ONE_COMMAND_BUILDS.includes(process.argv[2]) ? `../dist/bundle-${process.argv[2]}/main.cjs` : '../dist/bundle/main.cjs');

main(process.argv).then((code) => {
  process.exitCode = code;
});
