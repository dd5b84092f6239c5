import type { RecordingMeta } from '../../src/store/recording-writer.js';
import { waitFor } from '../support/waits.js';

export function meta(overrides: Partial<RecordingMeta> = {}): RecordingMeta {
  return {
    toolVersion: '0.1.0-test',
    target: 'http://127.0.0.1:4000',
    listen: '127.0.0.1:8080',
    mode: 'record',
    schemaHashes: { 'https://ag-ui.com/spec/draft/schema.json': 'sha256:abc' },
    startedAt: new Date('2026-01-02T03:04:05.678Z'),
    ...overrides,
  };
}

/** The `<enqueued> <ms>` lines a crash-test child has printed so far (a half-written last line left out). */
export function childReports(out: string): Array<[count: number, ms: number]> {
  return out
    .split('\n')
    .slice(0, -1)
    .map((line) => line.split(' ').map(Number) as [number, number]);
}

/**
 * Waits until a crash-test child has reported for at least `spanMs` of its own time, so that its
 * flush timers have had the chance to fire however slowly the machine runs it; false if it exits first.
 */
export async function childHasRun(child: { exitCode: number | null }, out: () => string, spanMs: number): Promise<boolean> {
  const ran = () => {
    const reports = childReports(out());
    return reports.length > 5 && reports[reports.length - 1][1] - reports[0][1] >= spanMs;
  };
  await waitFor(() => ran() || child.exitCode !== null, 'the child to report or exit');
  return ran();
}

/** Runs `fn` and returns the error it throws, so tests can look at `code`. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error, none was thrown');
}
