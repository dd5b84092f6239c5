// The agent side of bench/stdio.js: writes Pi RPC event lines to stdout as fast as the pipe takes them.
//   node bench/stdio-agent.js N            N lines at once, from start-up
//   node bench/stdio-agent.js N FIRST      FIRST lines (a first exchange), then, once a command line
//                                          arrives on stdin, its response and N event lines
const n = Number(process.argv[2] ?? 100_000);
const first = Number(process.argv[3] ?? 0);
const line = (i) => `{"type":"queue_update","steering":[],"followUp":["msg ${i}"]}\n`;

function burst(count, done) {
  let i = 0;
  (function pump() {
    while (i < count) {
      let chunk = '';
      for (let k = 0; k < 256 && i < count; k++) chunk += line(i++);
      if (!process.stdout.write(chunk)) return process.stdout.once('drain', pump);
    }
    done?.();
  })();
}

if (first > 0) {
  burst(first, () =>
    process.stdin.once('data', () => {
      process.stdin.pause();
      process.stdout.write('{"id":"bench","type":"response","command":"get_state","success":true}\n');
      burst(n);
    }),
  );
} else burst(n);
