/**
 * Runs scanSide for one side of a diff in a worker thread (see scan-parallel.ts), so that on a
 * machine with two cores both sides are read at once. Always answers on `port` and then raises
 * `signal[0]`; `signal[1]` counts progress, so a waiting parent can tell a slow scan from a stuck one.
 */
import { type MessagePort, workerData } from 'node:worker_threads';
import type { SideOptions } from './load-side.js';
import { scanSide, type ScanInput } from './scan-side.js';

const { input, options, port, signal } = workerData as { input: ScanInput; options: SideOptions; port: MessagePort; signal: Int32Array };

try {
  const scan = scanSide(input, options, () => Atomics.add(signal, 1, 1));
  port.postMessage({ scan });
} catch (error) {
  port.postMessage({ error: error instanceof Error ? error.message : String(error) });
} finally {
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
}
