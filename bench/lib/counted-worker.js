// A floor bench's worker thread (bench/record-floor.js, bench/lib/rest-floor.js): started from the bench's own
// module with its workerData, ready when it first posts, and counting what it has taken in a shared Int32, so
// the main thread can block until the worker is done without spending CPU on the wait.
import { Worker } from 'node:worker_threads';

/**
 * Starts `url` as a worker with `workerData` plus a shared `counter` (4 bytes) that the worker raises as it
 * takes units, and resolves once the worker has posted its first message (its ready signal).
 */
export async function startCountedWorker(url, workerData) {
  const counter = new SharedArrayBuffer(4);
  const worker = new Worker(url, { workerData: { ...workerData, counter } });
  await new Promise((ok, fail) => {
    worker.once('message', ok);
    worker.once('error', fail);
  });
  const done = new Int32Array(counter);
  return {
    worker,
    /** Blocks until the worker has taken `units` in all (the wait is off-CPU). */
    waitFor(units) {
      for (let seen = Atomics.load(done, 0); seen < units; seen = Atomics.load(done, 0)) Atomics.wait(done, 0, seen, 1000);
    },
    /** Asks the worker to close, resolves with what it posts back, then ends it. */
    async close() {
      const closed = new Promise((ok, fail) => {
        worker.once('message', ok);
        worker.once('error', fail);
      });
      worker.postMessage('close');
      const result = await closed;
      await worker.terminate();
      return result;
    },
  };
}
