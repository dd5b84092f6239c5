import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { lockForWriting, lockPathOf } from '../../src/store/writer-lock.js';
import { useCleanups } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';

useCleanups();

/** The pid of a process that has already ended: what a writer killed with kill -9 leaves in its lock. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('lockForWriting', () => {
  it('holds the recording until released: a second writer is refused, naming the holder', () => {
    const recording = scratch().file('run.db');
    const lock = lockForWriting(recording);
    expect(readFileSync(lockPathOf(recording), 'utf8')).toBe(`${process.pid}\n`);
    expect(() => lockForWriting(recording)).toThrow(`${recording}: cannot write the recording: this process (pid ${process.pid}) is already writing it; a recording has one writer at a time`);
    lock.release();
    expect(existsSync(lockPathOf(recording))).toBe(false);
    lockForWriting(recording).release();
  });

  it('takes over a lock whose writer is gone', () => {
    const recording = scratch().file('run.db');
    writeFileSync(lockPathOf(recording), `${deadPid()}\n`);
    const lock = lockForWriting(recording);
    expect(readFileSync(lockPathOf(recording), 'utf8')).toBe(`${process.pid}\n`);
    lock.release();
  });

  it('names another live writer by its pid (this test runner\'s parent stands in for it)', () => {
    const recording = scratch().file('run.db');
    writeFileSync(lockPathOf(recording), `${process.ppid}\n`);
    expect(() => lockForWriting(recording)).toThrow(`another agent-proxy (pid ${process.ppid}) is writing it`);
    // Not ours: releasing nothing leaves the other writer's lock alone.
    expect(readFileSync(lockPathOf(recording), 'utf8')).toBe(`${process.ppid}\n`);
  });
});
