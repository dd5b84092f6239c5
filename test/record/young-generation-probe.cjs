// Preloaded into a process under test (NODE_OPTIONS=--require): as its main thread exits, it
// allocates objects that each survive a few scavenges, the load under which V8 grows a young
// generation, then prints the size the young generation has reached on stderr.
const { getHeapSpaceStatistics } = require('node:v8');
const { writeSync } = require('node:fs');
const { isMainThread } = require('node:worker_threads');

if (isMainThread) {
  process.on('exit', () => {
    let kept = [];
    for (let i = 0; i < 3_000_000; i++) {
      kept.push({ i, text: `x${i}` });
      if (kept.length > 20_000) kept = [];
    }
    const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
    writeSync(2, `young generation: ${young.space_size} bytes\n`);
  });
}
