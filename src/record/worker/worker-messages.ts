import type { ProtocolId } from '../../protocols/catalog.js';
import type { RecordingMeta } from '../../store/recording-writer.js';
import type { LiveEvent } from '../live-events.js';
import type { EncodedBatch } from './op-batch.js';
import type { SpooledBatch } from './recording-spool.js';
import type { RecordingTotals } from '../pipeline/recording-sink.js';
import type { StorageRedactionOptions } from '../pipeline/traffic-recorder.js';

export type ToWorker =
  /** `bytes`: payload; `opsBytes`: length of the ops' JSON (characters, bytes for ASCII), held in memory until applied. */
  | { type: 'ops'; batch: EncodedBatch; bytes: number; opsBytes: number }
  /** A batch parked in the spool file: read it back there, in this place of the order. */
  | { type: 'spooled'; batch: SpooledBatch; bytes: number }
  | { type: 'close'; endedAt: string };

/** Recording worker → capture thread. */
export type FromWorker =
  | { type: 'ready'; out: string }
  | { type: 'failed'; code: string; message: string }
  /** A write to the recording failed: the writer drops every later row; the worker goes on judging. Sent once. */
  | { type: 'write-failed'; code: string; message: string; at: number }
  | { type: 'live'; event: LiveEvent }
  /** Since the last report: `bytes` of payload recorded, `opsBytes` of op JSON applied, `spooled` bytes read back. */
  | { type: 'progress'; bytes: number; opsBytes: number; spooled: number; totals: RecordingTotals }
  | { type: 'closed'; totals: RecordingTotals; error?: { code: string; message: string } };

export interface WorkerSetup {
  out: string;
  meta: Omit<RecordingMeta, 'schemaHashes' | 'startedAt'> & { startedAt: string };
  overwrite?: boolean;
  protocol?: ProtocolId;
  maxBodyBytes?: number;
  schemas?: string[];
  /** `--redact-query` and `--redact-field`, applied by the worker to what it stores. */
  redact?: StorageRedactionOptions;
  /** performance.timeOrigin + now() of the capture thread's clock origin, so both agree on offsets. */
  clockOrigin: number;
  /** Post live events (exchange ends, invalid messages) back; off when nobody listens. */
  live: boolean;
  /** The BurstSignal's buffer, when capture may spool (line transports). */
  burst?: SharedArrayBuffer;
  /**
   * When the worker lowers its priority: at once (default: traffic may flow while it starts), or once
   * the recording is open, when the caller forwards nothing before that.
   */
  lowerPriority?: 'at-start' | 'when-ready';
}
