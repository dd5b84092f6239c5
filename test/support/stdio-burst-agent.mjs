// A stand-in agent that answers nothing and writes N Pi RPC events to stdout as fast as the pipe
// takes them, then exits: a burst that outruns recording, so the recorder has to spool.
const n = Number(process.argv[2] ?? 100_000);
let i = 0;
function pump() {
  while (i < n) {
    let chunk = '';
    for (let k = 0; k < 512 && i < n; k++, i++) chunk += `{"type":"queue_update","steering":[],"followUp":["burst line ${i}"]}\n`;
    if (!process.stdout.write(chunk)) return process.stdout.once('drain', pump);
  }
}
pump();
