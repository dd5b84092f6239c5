// The agent side of bench/stdio.js: writes N Pi RPC event lines to stdout as fast as the pipe takes them.
const n = Number(process.argv[2] ?? 100_000);
const line = (i) => `{"type":"queue_update","steering":[],"followUp":["msg ${i}"]}\n`;
let i = 0;
function pump() {
  while (i < n) {
    let chunk = '';
    for (let k = 0; k < 256 && i < n; k++) chunk += line(i++);
    if (!process.stdout.write(chunk)) return process.stdout.once('drain', pump);
  }
}
pump();
