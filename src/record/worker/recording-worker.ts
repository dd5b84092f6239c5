import { createRequire } from 'node:module';
import { workerData } from 'node:worker_threads';
import { BurstSignal } from './burst-signal.js';
import type { WorkerSetup } from './worker-messages.js';
import { yieldToForwarding } from './worker-priority.js';
import { loadInSteps } from './load-in-steps.js';

/**
 * The recording worker's entry. Its start-up (modules, schemas, SQLite) may run while the first
 * traffic already flows (a stdio agent is spawned at once), so it must not compete with it: the
 * thread's priority is lowered before anything else is loaded, and the heavy modules are loaded in
 * steps, each after any burst of traffic has passed. The recording itself is in recording-worker-main.ts.
 *
 * When nothing is forwarded until the worker is ready (the HTTP proxy listens only then), a low
 * priority would only delay the start: on a busy machine by seconds. Then the priority is lowered
 * once the recording is open (recording-worker-main.ts).
 */
const setup = workerData as WorkerSetup;
if (setup.lowerPriority !== 'when-ready') yieldToForwarding();
const { burst: burstBuffer } = setup;
const burst = burstBuffer ? new BurstSignal(burstBuffer) : undefined;
// The module graph in steps of ~10 ms or less (load-in-steps.ts). Before the file is opened, only
// what opening it takes (the schemas the protocols declare, from the catalog's summary): the
// catalog, the recorder and each protocol's module (a step each) load once it is open and the
// worker has said so (recording-worker-main.ts), so that `record` listens without
// waiting for them; ops posted meanwhile wait in the port. The list sets only the granularity:
// whatever it misses, the last step loads.
// better-sqlite3 (CommonJS) is required, not import()ed: an import() sets up Node's ES module loader
// in this thread and scans the package's source for its names (~10 ms of CPU at every start), while
// the modules that use it require it anyway (store/open-database.ts). fast-json-patch is not loaded
// here: the bundle holds it (scripts/bundle-cli.mjs), and the AG-UI module's step loads it unbundled.
const require = createRequire(import.meta.url);
const opening: Array<() => unknown> = [
  () => require('better-sqlite3'),
  () => import('../../schema/schema-registry.js'),
  () => import('../../store/recording-writer.js'),
  () => import('../../protocols/catalog-summary.js'),
  () => import('./recording-worker-main.js'),
];
// Not top-level await (the CLI runs this from a CommonJS bundle): a module that fails to load ends
// the thread with its error all the same, which the capture thread reports.
loadInSteps(opening, burst).catch((error: unknown) =>
  setImmediate(() => {
    throw error;
  }),
);
