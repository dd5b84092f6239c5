import { DEFAULT_MAX_BODY_BYTES } from '../pipeline/recording-sink.js';

const MiB = 1024 * 1024;

/**
 * The recording worker's heap limit, in MiB: 64 for the default --max-body (10 MiB), and as much
 * more as a larger --max-body needs. A message is parsed as one string of up to --max-body
 * characters, so the heap must hold several of them with room to spare. V8 ends a worker that
 * reaches its limit cleanly only while each allocation is small beside it: one that cannot fit
 * even then aborts the whole process, forwarding included.
 */
export function recorderHeapMb(maxBodyBytes = DEFAULT_MAX_BODY_BYTES): number {
  return Math.max(64, Math.ceil((6.4 * maxBodyBytes) / MiB));
}

/**
 * How much heap the recorder lets the parse of one message take (see jsonParseCost): three eighths
 * of its heap, 24 MiB by default. A message that would take more is stored whole, not parsed.
 */
export function parseBudgetBytes(maxBodyBytes = DEFAULT_MAX_BODY_BYTES): number {
  return (recorderHeapMb(maxBodyBytes) * MiB * 3) / 8;
}
