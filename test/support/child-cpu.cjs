// Where the CPU of the processes a test file starts goes, by command (test/support/cpu-per-file.ts
// loads this into every Node process the tests start, through NODE_OPTIONS, only while
// AGENT_PROXY_TEST_CPU is set). At its exit each process appends one JSON line: the test file that
// started it, its argv and its CPU (user + system, its worker threads included). A process ended by
// a signal it does not handle, or started with an environment of its own, is not counted: the gap
// shows as the rest of the file's children figure in `node scripts/test-cpu.mjs`.
'use strict';
const { isMainThread } = require('node:worker_threads');

const out = process.env.AGENT_PROXY_CHILD_CPU;
if (out && isMainThread) {
  const { appendFileSync } = require('node:fs');
  const atPreload = process.cpuUsage();
  process.on('exit', (code) => {
    const used = process.cpuUsage();
    const line = {
      file: process.env.AGENT_PROXY_CPU_TEST_FILE ?? '?',
      argv: process.argv.slice(1),
      code,
      ms: Math.round((used.user + used.system) / 1000),
      // Node's own start, before the first module of the program: the floor of every run.
      bootMs: Math.round((atPreload.user + atPreload.system) / 1000),
    };
    try {
      appendFileSync(out, `${JSON.stringify(line)}\n`);
    } catch {
      // A folder the process cannot write to (a test that takes the disk away) only loses this line.
    }
  });
}
