/**
 * Runs in every test file (vitest setupFiles): after the file's last test, every recording it wrote
 * into a temp folder (test/support/temp-dir.ts keeps those folders until then) is read by
 * validate, show, findings and the inspector, in-process, and the file fails if they do not give
 * the same set of (exchange, message, rule, severity). Per file, in its own afterAll: no order
 * between files run in parallel is assumed. A recording still being written (its writer lock held
 * by a live process) is left out, and so is one a view cannot read at all (a damaged file some test
 * made on purpose), and one of more than MAX_CHECKED_ROWS exchanges and messages or MAX_CHECKED_BYTES (the volume tests'), and one this tool did not
 * write (a test's own RecordingWriter with verdicts set by hand; see notChecked). AGENT_PROXY_AGREEMENT=off turns the check off; AGENT_PROXY_AGREEMENT_STATS=<file>
 * appends what it checked and how long it took (`ms` wall, `cpuMs` this process's CPU), one JSON line per test file.
 *
 * The four views are a function of the recording's bytes (the rules and schemas do not change
 * within a process), so a recording whose bytes, write-ahead log included, were already found to
 * agree in this worker (a copy of an example recording, which many files replay) counts as checked
 * without being read again; one that disagreed is always checked again, to be reported under its name.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { enableAgreementCheck, takePending } from './agreement-pending.js';
import type { RecordingReader } from '../../src/store/recording-reader.js';

enableAgreementCheck();

/** Is the recording being written right now (its lock, beside it, names a live process)? */
function beingWritten(recording: string): boolean {
  const lock = join(dirname(recording), `.${basename(recording)}.lock`);
  if (!existsSync(lock)) return false;
  const pid = Number.parseInt(readFileSync(lock, 'utf8'), 10);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The contents (file and write-ahead log) of the recordings found to agree, by sha256: kept for the worker's life. */
const agreed = new Set<string>();

function contentKey(recording: string): string {
  const hash = createHash('sha256').update(readFileSync(recording));
  const wal = `${recording}-wal`;
  hash.update('\0wal\0');
  if (existsSync(wal)) hash.update(readFileSync(wal));
  return hash.digest('hex');
}

/** The CPU this process spent since `start`, in ms: the figure to compare on a loaded machine, where `ms` (wall) is not. */
function cpuMsSince(start: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(start);
  return Math.round((user + system) / 1000);
}

afterAll(async () => {
  const pending = takePending();
  if (pending.length === 0) return;
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const problems: string[] = [];
  let checked = 0;
  let skipped = 0;
  let large = 0;
  let byHand = 0;
  let repeated = 0;
  const each: Array<[string, number]> = [];
  try {
    const { disagreement, toCheck } = await import('./recording-agreement.js');
    for (const recording of pending.flatMap((p) => p.recordings)) {
      if (!existsSync(recording) || beingWritten(recording)) {
        skipped++;
        continue;
      }
      let problem: string | undefined;
      const at = performance.now();
      // A .db's reader, opened to see whether it is checked: disagreement() reads show's view with it and closes it.
      let reader: RecordingReader | undefined;
      try {
        const found = toCheck(recording);
        reader = found.reader;
        if (found.why !== undefined) {
          if (found.why === 'large') large++;
          else byHand++;
          continue;
        }
        const content = contentKey(recording);
        if (agreed.has(content)) repeated++;
        else {
          const opened = reader;
          reader = undefined;
          problem = disagreement(recording, opened);
          if (problem === undefined) agreed.add(content);
        }
      } catch {
        skipped++;
        continue;
      } finally {
        reader?.close();
        each.push([basename(recording), Math.round(performance.now() - at)]);
      }
      checked++;
      if (problem !== undefined) problems.push(problem);
    }
  } finally {
    for (const { dir } of pending) rmSync(dir, { recursive: true, force: true });
  }
  const stats = process.env.AGENT_PROXY_AGREEMENT_STATS;
  if (stats) appendFileSync(stats, JSON.stringify({ file: expect.getState().testPath ?? null, checked, repeated, skipped, large, byHand, ms: Math.round(performance.now() - started), cpuMs: cpuMsSince(cpuStarted), each }) + '\n');
  if (problems.length > 0) {
    throw new Error(`validate, show, findings and the inspector disagree on ${problems.length} recording(s) this file wrote:\n${problems.join('\n')}`);
  }
});
