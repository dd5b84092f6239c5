/**
 * `agent-proxy import` runs the import on this thread, so that the main thread stays free to hear
 * SIGINT and SIGTERM while a long file is read: the import itself is synchronous, and a signal it
 * could not hear would leave its partial file behind.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { importNdjsonFile } from '../store/ndjson-import.js';

/** What the command hands the thread. */
export interface ImportJob {
  file: string;
  out: string;
  overwrite?: boolean;
}

const job = workerData as ImportJob;
try {
  parentPort!.postMessage({ totals: importNdjsonFile(job.file, job.out, { overwrite: job.overwrite }) });
} catch (error) {
  parentPort!.postMessage({ error: (error as Error).message ?? String(error) });
}
