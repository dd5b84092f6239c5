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
// The module graph in steps of ~10 ms or less, so that a burst that starts meanwhile waits for one
// step at most. The list sets only the granularity: whatever it misses, the last step loads.
const steps = [
  () => import('better-sqlite3'),
  () => import('ajv/dist/2020.js'),
  () => import('fast-json-patch'),
  () => import('../schema/schema-registry.js'),
  () => import('../store/recording-writer.js'),
  () => import('../protocols/agui/index.js'),
  () => import('../protocols/acp/index.js'),
  () => import('../protocols/pi-rpc/index.js'),
  () => import('../protocols/pi-rest/index.js'),
  () => import('../protocols/pi-daemon-rpc/index.js'),
  () => import('./traffic-recorder.js'),
  () => import('./recording-worker-main.js'),
];
for (const load of steps) {
  if (burst?.active) await burst.quiet();
  await load();
}
