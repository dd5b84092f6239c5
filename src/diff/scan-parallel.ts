import { existsSync, statSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';
import { openDatabase } from '../store/open-database.js';
import type { SideOptions } from './load-side.js';
import { scanSide, type ScanInput, type SideScan } from './scan-side.js';


/**
 * Below this many messages in the two recordings, starting a worker costs more than it saves (it
 * was 32 MB of recordings when a message took ~255 bytes of its file; a closed recording of format 9
 * holds its messages' bytes compressed, ~80 bytes a message, so the size no longer says it).
 */
const WORKER_MIN_MESSAGES = 128_000;
/** Files that add up to less than this cannot hold that many messages (32 bytes a message is less than any row takes): not opened to count. */
const COUNT_FROM_BYTES = 4 * 1024 * 1024;
/** A worker that shows no progress for this long is given up on, and its side is scanned here. */
const WORKER_STALL_MS = 30_000;

/**
 * `AGENT_PROXY_DIFF_WORKER`: `never` scans both sides in this thread; `always` scans side B in a
 * worker thread whatever the size; anything else (the default) uses the worker for recordings of
 * 128,000 messages and more together, on a machine with a core to spare for it (coreToSpare). The
 * worker only exists in the compiled build (dist/diff/scan-worker.js).
 */
export const DIFF_WORKER_ENV = 'AGENT_PROXY_DIFF_WORKER';


/**
 * The first pass over both sides (scanSide): B in a worker thread while A is scanned here, when the
 * recordings are big enough for that to pay off. Stays synchronous: the result comes back through
 * a MessagePort read with receiveMessageOnPort after waiting on a shared flag. Whatever goes wrong
 * with the worker, B is scanned here instead, so errors are reported the same way either way.
 */
export function scanSides(a: ScanInput, b: ScanInput, options: SideOptions, progress?: (side: 'a' | 'b', messages: number) => void): [SideScan, SideScan] {
  const worker = useWorker(a, b) ? startWorkerScan(b, options) : undefined;
  let scanA: SideScan;
  try {
    scanA = scanSide(a, options, progress && ((n) => progress('a', n)));
  } catch (error) {
    worker?.cancel();
    throw error;
  }
  if (worker) progress?.('b', 0);
  const scanB = worker?.result() ?? scanSide(b, options, progress && ((n) => progress('b', n)));
  return [scanA, scanB];
}

const WORKER_URL = new URL('./scan-worker.js', import.meta.url);

function useWorker(a: ScanInput, b: ScanInput): boolean {
  const mode = process.env[DIFF_WORKER_ENV];
  if (mode === 'never') return false;
  if (!existsSync(fileURLToPath(WORKER_URL))) return false;
  if (mode === 'always') return true;
  return workerPaysFor([a.dbFile, b.dbFile]) && coreToSpare(availableParallelism(), loadavg()[0]);
}

/**
 * Is a core idle for the worker, besides this thread's? The worker buys wall time only then: it costs
 * ~1 s of CPU over one thread on a 200,000-message pair (a second heap warming up: compiling, growing its
 * young generation, first touches of its memory), and on a machine whose cores are all busy it gains none
 * back (docs/performance.md). `load`: the last minute's load average (0 where the system has none).
 */
export function coreToSpare(cores: number, load: number): boolean {
  return cores - load >= 2;
}

/** Do these recordings hold enough messages together for a worker to pay for its start? */
export function workerPaysFor(files: readonly string[]): boolean {
  if (files.reduce((n, file) => n + size(file), 0) < COUNT_FROM_BYTES) return false;
  return files.reduce((n, file) => n + messageCount(file), 0) >= WORKER_MIN_MESSAGES;
}

/** About how many messages a recording holds (the last message id: ids are given in order from 1), 0 when it cannot tell. */
function messageCount(file: string): number {
  try {
    const db = openDatabase(file, { readonly: true });
    try {
      return (db.prepare('SELECT max(id) FROM messages').pluck().get() as number | null) ?? 0;
    } finally {
      db.close();
    }
  } catch {
    // The scan reports a file it cannot read; here it only means no worker.
    return 0;
  }
}

function size(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function startWorkerScan(input: ScanInput, options: SideOptions): { result(): SideScan | undefined; cancel(): void } | undefined {
  const signal = new Int32Array(new SharedArrayBuffer(8));
  const { port1, port2 } = new MessageChannel();
  let worker: Worker;
  try {
    worker = new Worker(WORKER_URL, {
      workerData: { input, options: { ignore: [...options.ignore], semantic: options.semantic }, port: port2, signal },
      transferList: [port2],
    });
  } catch {
    port1.close();
    return undefined;
  }
  worker.unref();
  // An error event with nobody listening would be thrown; the fallback handles it instead.
  worker.on('error', () => undefined);
  const finish = () => {
    port1.close();
    void worker.terminate();
  };
  return {
    result() {
      let progress = Atomics.load(signal, 1);
      let stalled = 0;
      while (Atomics.load(signal, 0) === 0) {
        if (Atomics.wait(signal, 0, 0, 1000) !== 'timed-out') continue;
        const now = Atomics.load(signal, 1);
        if (now !== progress) {
          progress = now;
          stalled = 0;
        } else if ((stalled += 1000) >= WORKER_STALL_MS) {
          break;
        }
      }
      const reply = receiveMessageOnPort(port1)?.message as { scan?: SideScan } | undefined;
      finish();
      return reply?.scan;
    },
    cancel: finish,
  };
}
