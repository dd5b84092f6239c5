import { closeSync, ftruncateSync, mkdirSync, openSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { RecorderOp } from './worker-messages.js';

/** Where one spooled batch lies in the spool file. */
export interface SpooledBatch {
  fd: number;
  position: number;
  length: number;
}

/**
 * Batches of recorder ops parked on disk while recording runs behind a line transport (a stdio
 * agent, the NDJSON socket), so that a burst of traffic is forwarded at full speed instead of being
 * paused until the recording worker catches up, and memory stays flat. The worker reads each batch
 * back, in order, through the same file descriptor (worker threads share the process's fds).
 *
 * Only line transports spool: their stored rows hold the same bytes anyway, so the spool writes
 * nothing to disk that the recording would not. On POSIX the file is unlinked as soon as it is open,
 * so nothing is left behind, even after kill -9 (which loses what was spooled and not yet recorded).
 */
export class RecordingSpool {
  private written = 0;
  private consumed = 0;

  private constructor(
    readonly fd: number,
    private readonly path: string,
    private readonly unlinked: boolean,
  ) {}

  static open(path: string): RecordingSpool {
    // The worker creates the recording's folder, but it may still be starting when a burst begins.
    mkdirSync(dirname(path), { recursive: true });
    const fd = openSync(path, 'w+', 0o600);
    let unlinked = false;
    if (process.platform !== 'win32') {
      unlinkSync(path);
      unlinked = true;
    }
    return new RecordingSpool(fd, path, unlinked);
  }

  /** Bytes written to the spool and not yet read back by the worker. */
  get pending(): number {
    return this.written - this.consumed;
  }

  /** Appends one batch; `ops` may hold views into one shared buffer, which is written once. */
  append(ops: RecorderOp[]): SpooledBatch {
    const data = serialize(ops);
    const position = this.written;
    let done = 0;
    while (done < data.length) done += writeSync(this.fd, data, done, data.length - done, position + done);
    this.written += data.length;
    return { fd: this.fd, position, length: data.length };
  }

  /** The worker has read `length` more bytes; once it has read everything the file is emptied again. */
  consumedBytes(length: number, spilling: boolean): void {
    this.consumed += length;
    if (!spilling && this.consumed === this.written && this.written > 0) {
      ftruncateSync(this.fd, 0);
      this.written = this.consumed = 0;
    }
  }

  close(): void {
    try {
      closeSync(this.fd);
    } finally {
      if (!this.unlinked) rmSync(this.path, { force: true });
    }
  }
}

/** The worker's side: reads one spooled batch back. */
export function readSpooledBatch(batch: SpooledBatch): RecorderOp[] {
  const data = Buffer.allocUnsafe(batch.length);
  let done = 0;
  while (done < batch.length) {
    const read = readSync(batch.fd, data, done, batch.length - done, batch.position + done);
    if (read === 0) throw new Error(`the recording spool ended early at byte ${batch.position + done}`);
    done += read;
  }
  return deserialize(data) as RecorderOp[];
}
