import { closeSync, ftruncateSync, openSync, readSync, rmSync, unlinkSync, writevSync } from 'node:fs';
import { dirname } from 'node:path';
import type { EncodedBatch, EncodedOps } from './op-batch.js';
import { makeFolders } from '../../core/make-folders.js';

/** Where one spooled batch lies in the spool file. */
export interface SpooledBatch {
  fd: number;
  position: number;
  /** Bytes in all: the ops' JSON, then the payload. */
  length: number;
  /** Bytes of the ops' JSON (UTF-8). */
  opsLength: number;
}

/**
 * Batches of recorder ops parked on disk while recording runs behind a line transport (a stdio
 * agent, the NDJSON socket), so that a burst of traffic is forwarded at full speed instead of being
 * paused until the recording worker catches up, and memory stays flat. The worker reads each batch
 * back, in order, through the same file descriptor (worker threads share the process's fds).
 *
 * The start of a burst waits in memory instead (see WorkerRecordingSink): writing to the spool is
 * CPU spent on the forwarding thread.
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
    makeFolders(dirname(path));
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

  /** Appends one batch: its ops' JSON, then its payload bytes, written from where they are. */
  append(batch: EncodedOps): SpooledBatch {
    const ops = Buffer.from(batch.ops, 'utf8');
    let parts: Uint8Array[] = [ops, ...batch.payload];
    const length = ops.length + batch.payloadBytes;
    const position = this.written;
    let done = 0;
    while (done < length) {
      let wrote = writevSync(this.fd, parts, position + done);
      done += wrote;
      // A short write: carry on from where it stopped.
      while (parts.length > 0 && wrote >= parts[0].byteLength) wrote -= parts.shift()!.byteLength;
      if (wrote > 0) parts[0] = parts[0].subarray(wrote);
    }
    this.written += length;
    return { fd: this.fd, position, length, opsLength: ops.length };
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
export function readSpooledBatch(batch: SpooledBatch): EncodedBatch {
  const ops = Buffer.allocUnsafe(batch.opsLength);
  const bytes = new ArrayBuffer(batch.length - batch.opsLength);
  readFully(batch.fd, ops, batch.position);
  readFully(batch.fd, new Uint8Array(bytes), batch.position + batch.opsLength);
  return { ops: ops.toString('utf8'), bytes };
}

function readFully(fd: number, into: Uint8Array, position: number): void {
  let done = 0;
  while (done < into.byteLength) {
    const read = readSync(fd, into, done, into.byteLength - done, position + done);
    if (read === 0) throw new Error(`the recording spool ended early at byte ${position + done}`);
    done += read;
  }
}
