// Child processes for the benchmarks: each side of a measurement runs in its own process, so the
// client, the upstream and the proxy never share an event loop.
import { spawn } from 'node:child_process';

/** Starts `node …args` and resolves with the child once it printed its first line (parsed by `firstLine`). */
export function startProcess(args, firstLine) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', function onData(chunk) {
      buffer += chunk;
      const nl = buffer.indexOf('\n');
      if (nl < 0) return;
      child.stdout.off('data', onData);
      child.stdout.resume();
      resolve({ child, info: firstLine(buffer.slice(0, nl)) });
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

/** SIGTERM, resolved once the child has exited. */
export function stop(child) {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}
