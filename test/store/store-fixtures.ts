import type { CancelWrite, FlushSchedule } from '../../src/store/flush-schedule.js';
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

/**
 * A writer's flush schedule run by hand: it keeps what the batching policy scheduled (a write after
 * the interval, a write on the next turn) and runs it only when the test says, so whether and when
 * rows are written is checked without timers.
 */
export class ManualSchedule implements FlushSchedule {
  private timed?: { ms: number; write: () => void };
  private nextTurn?: () => void;
  /** How many timed writes have been scheduled in all (one per burst, not one per row). */
  timedScheduled = 0;

  later(ms: number, write: () => void): CancelWrite {
    this.timedScheduled++;
    const entry = { ms, write };
    this.timed = entry;
    return () => void (this.timed === entry && (this.timed = undefined));
  }

  soon(write: () => void): CancelWrite {
    this.nextTurn = write;
    return () => void (this.nextTurn === write && (this.nextTurn = undefined));
  }

  /** What waits to run: the interval of a timed write (if any), and whether a next-turn write does. */
  get scheduled(): { afterMs?: number; nextTurn: boolean } {
    return { ...(this.timed ? { afterMs: this.timed.ms } : {}), nextTurn: this.nextTurn !== undefined };
  }

  /** Runs the timed write, as its timer would. */
  runTimed(): void {
    const entry = this.timed;
    if (!entry) throw new Error('no timed write is scheduled');
    this.timed = undefined;
    entry.write();
  }

  /** Runs the next-turn write, as the event loop would. */
  runNextTurn(): void {
    const write = this.nextTurn;
    if (!write) throw new Error('no next-turn write is scheduled');
    this.nextTurn = undefined;
    write();
  }
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
