import type { BurstSignal } from './burst-signal.js';

/**
 * Loads modules one step at a time, each once any burst of traffic has passed: the recording
 * worker's start may run while a stdio agent's first lines already flow, and a burst that starts
 * meanwhile then waits for one step (~10 ms or less) at most.
 */
export async function loadInSteps(loads: ReadonlyArray<() => unknown>, burst: BurstSignal | undefined): Promise<void> {
  for (const load of loads) {
    if (burst?.active) await burst.quiet();
    await load();
  }
}
