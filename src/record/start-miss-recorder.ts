import type { MissRecorderOptions, RunningMissRecorder } from './miss-recorder.js';

/**
 * Forwards replay's misses to the real upstream and records them (`--on-miss passthrough`). This is
 * the implementation of replay's port (replay/miss-passthrough.ts: record matches its types by shape,
 * never importing replay); the composers hand it to startReplay. The recording pipeline behind it is
 * loaded on first call, so a replay that passes nothing through never loads it.
 */
export async function startMissRecorder(options: MissRecorderOptions): Promise<RunningMissRecorder> {
  const { openMissRecorder } = await import('./miss-recorder.js');
  return openMissRecorder(options);
}
