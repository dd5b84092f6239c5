// The reference point for bench/stdio.js: the least a stdio relay can do. It spawns the agent, passes
// stdin and stdout through with backpressure, as `proxy record --stdio` does, and records nothing.
// Whatever share of direct it gets is the ceiling for any recorder on the same machine.
//   node bench/bare-relay.js <command> [args...]
import { spawn } from 'node:child_process';

const child = spawn(process.argv[2], process.argv.slice(3), { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
child.stdout.on('data', (chunk) => {
  if (!process.stdout.write(chunk)) {
    child.stdout.pause();
    process.stdout.once('drain', () => child.stdout.resume());
  }
});
child.on('close', (code) => process.exit(code ?? 1));
