// Runs the built CLI's main() once per job, one job after the other, in this one process, and
// writes what each printed and its exit code to a JSON file: what `node bin/agent-proxy.js <args>`
// would give, for the price of one Node start-up and one load of the CLI's modules instead of one
// per run (test/cli/cli-batch.ts starts it; a run of the CLI costs ~0.25-0.35 s of CPU, most of it
// starting). While a job runs, process.stdout and process.stderr keep what it writes.
// A job is an argument list, or { args, env }: env's variables are set while that job runs.
//   node test/cli/cli-batch-runner.cjs <repository> <jobs.json> <results.json>
'use strict';
const { enableCompileCache } = require('node:module');
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const [repo, jobsFile, resultsFile] = process.argv.slice(2);
// As bin/agent-proxy.js does, before the bundle loads.
enableCompileCache?.();
const { main } = require(join(repo, 'dist', 'bundle', 'main.cjs'));
const bin = join(repo, 'bin', 'agent-proxy.js');

// One process for many runs: each adds its own listeners (main's on stdout, a command's on process
// for its signals or exit), which in a process of its own would never reach Node's warning at 11.
process.setMaxListeners(0);
process.stdout.setMaxListeners(0);
process.stderr.setMaxListeners(0);

/** Keeps what is written to `stream` in `chunks` until the returned function is called. */
function keep(stream, chunks) {
  const write = stream.write;
  stream.write = (chunk, encoding, callback) => {
    if (typeof encoding === 'function') [callback, encoding] = [encoding, undefined];
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, encoding ?? 'utf8') : Buffer.from(chunk));
    if (callback) process.nextTick(callback);
    return true;
  };
  return () => {
    stream.write = write;
  };
}

/** Sets the variables of `env` until the returned function puts back what was there. */
function setEnv(env) {
  const before = Object.keys(env).map((name) => [name, process.env[name]]);
  Object.assign(process.env, env);
  return () => {
    for (const [name, value] of before) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

async function runAll() {
  const results = [];
  for (const job of JSON.parse(readFileSync(jobsFile, 'utf8'))) {
    const { args, env } = Array.isArray(job) ? { args: job, env: {} } : job;
    const stdout = [];
    const stderr = [];
    const restore = [keep(process.stdout, stdout), keep(process.stderr, stderr), setEnv(env)];
    let code;
    try {
      code = await main([process.execPath, bin, ...args]);
    } finally {
      for (const put of restore) put();
    }
    results.push({ code, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') });
  }
  writeFileSync(resultsFile, JSON.stringify(results));
}

// No process.exit: like each real run, the batch ends when nothing is left open, so a run that
// left a server, a worker or a file open keeps it from ending and fails the test that waits.
runAll().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exitCode = 70;
});
