/**
 * `agent-proxy import` runs the import on this thread, so that the main thread stays free to hear
 * SIGINT and SIGTERM while a long file is read: the import itself is synchronous, and a signal it
 * could not hear would leave its partial file behind. How far it is goes to the main thread in
 * steps, for the progress line.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { importNdjsonText, readNdjsonRecordingText } from '../store/ndjson-import.js';
import { keepPatterns } from '../core/credential-scrubber.js';

/** What the command hands the thread. */
export interface ImportJob {
  file: string;
  out: string;
  overwrite?: boolean;
  /** `--keep-secrets-matching`, already checked to compile. */
  keepSecretsMatching?: string[];
}

/** Messages imported between two progress messages to the main thread. */
export const PROGRESS_STEP = 1000;

const job = workerData as ImportJob;
try {
  let sinceLast = 0;
  const onMessage = () => {
    if (++sinceLast < PROGRESS_STEP) return;
    parentPort!.postMessage({ progress: sinceLast });
    sinceLast = 0;
  };
  const totals = importNdjsonText(readNdjsonRecordingText(job.file), job.out, { overwrite: job.overwrite, file: job.file, onMessage, keepSecrets: keepPatterns(job.keepSecretsMatching) });
  parentPort!.postMessage({ totals });
} catch (error) {
  parentPort!.postMessage({ error: (error as Error).message ?? String(error) });
}
