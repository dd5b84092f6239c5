import { UsageError } from '../core/errors.js';

/**
 * The options that go with `--on-miss passthrough`: needed with it, and refused without it, where
 * they would be ignored without a word.
 */
export function checkMissOptions(onMiss: string, options: { target?: string; missesOut?: string; overwriteMisses?: boolean; missRecording?: object; forward?: boolean }): void {
  if (onMiss !== 'error' && onMiss !== 'passthrough') throw new UsageError(`--on-miss '${onMiss}' is not a policy: expected error or passthrough`);
  // A forward replay's client names each request's origin: that is where its miss goes.
  if (options.forward && options.target !== undefined) throw new UsageError('replay --forward has no --target: each miss --on-miss passthrough forwards goes to the origin its request names');
  if (onMiss === 'passthrough' && !options.target && !options.forward) throw new UsageError('--on-miss passthrough needs --target <url> to forward misses to');
  if (onMiss !== 'passthrough' && options.missesOut !== undefined) {
    throw new UsageError('--misses-out records the misses that --on-miss passthrough forwards; add --on-miss passthrough --target <url>, or drop --misses-out');
  }
  if (onMiss !== 'passthrough' && options.target !== undefined) throw new UsageError('--target is where --on-miss passthrough forwards misses; add --on-miss passthrough, or drop --target');
  if (onMiss !== 'passthrough' && options.missRecording !== undefined && Object.values(options.missRecording).some((value) => value !== undefined)) {
    throw new UsageError('the redaction, --max-body and --schemas options say how --on-miss passthrough records the misses it forwards; add --on-miss passthrough --target <url>, or drop them');
  }
  if (options.overwriteMisses && options.missesOut === undefined) throw new UsageError('--overwrite replaces the --misses-out file; it goes with --misses-out');
}
