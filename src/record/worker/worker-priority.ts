import { setPriority } from 'node:os';

/**
 * Lowers the calling thread to the lowest priority, so that recording runs in the gaps forwarding
 * leaves: forward first, record after. On Linux a nice value is per thread, so this lowers only the
 * recording thread; elsewhere (macOS) it would lower the whole process, so it is left alone.
 */
export function yieldToForwarding(): void {
  if (process.platform !== 'linux') return;
  try {
    setPriority(19);
  } catch {
    // Not permitted here (some containers): recording simply shares the CPU evenly.
  }
}
