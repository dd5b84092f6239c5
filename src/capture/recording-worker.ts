import { setPriority } from 'node:os';
import { workerData } from 'node:worker_threads';
import { BurstSignal } from './burst-signal.js';
import type { WorkerSetup } from './worker-messages.js';

/**
 * The recording worker's entry. Its start-up (modules, schemas, SQLite) runs while the first
 * traffic already flows, so it must not compete with it: the thread's priority is lowered before
 * anything else is loaded, and the heavy modules are loaded in steps, each after any burst of
 * traffic has passed. The recording itself is in recording-worker-main.ts.
 *
 * Forward first, record after: on Linux a nice value is per thread, so this lowers only the
 * recording thread. When the CPU is contended the forwarding thread (and the peers) run first and
 * recording catches up in the gaps; the backlog cap in the capture thread still bounds how far behind.
 * Elsewhere (macOS) the call would lower the whole process, so it is left alone.
 */
if (process.platform === 'linux') {
  try {
    setPriority(19);
  } catch {
    // Not permitted here (some containers): recording simply shares the CPU evenly.
  }
}
const { burst: burstBuffer } = workerData as WorkerSetup;
const burst = burstBuffer ? new BurstSignal(burstBuffer) : undefined;
for (const load of [() => import('better-sqlite3'), () => import('ajv/dist/2020.js'), () => import('./recording-worker-main.js')]) {
  if (burst?.active) await burst.quiet();
  await load();
}
