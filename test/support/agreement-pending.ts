/**
 * The temp folders that hold recordings, kept until the end of their test file so that the
 * agreement check (agreement-setup.ts) can read every recording the file wrote before they are
 * removed. Small on purpose: temp-dir.ts imports it in every test file; the check's own imports
 * (the judge, the store, the inspector) load only in a file that wrote a recording.
 */
import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';

export interface PendingFolder {
  dir: string;
  recordings: string[];
}

let enabled = false;
const pending: PendingFolder[] = [];
const byHand = new Set<string>();

/**
 * A recording written by hand (test/support/ndjson-recording.ts, test/cli/cli-fixtures.ts), or a
 * folder of them: their verdicts are what the test wrote, to see how the commands show them, not
 * what the rules say, so they are not checked.
 */
export function verdictsWrittenByHand(path: string): void {
  byHand.add(path);
}

/** Called by the setup file: from now on, folders with recordings wait for the check. */
export function enableAgreementCheck(): void {
  enabled = process.env.AGENT_PROXY_AGREEMENT !== 'off';
}

/** The recordings in `dir` (a .db or its NDJSON form, told by their first bytes, whatever their names). */
function recordingsIn(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir, { recursive: true }) as string[];
  } catch {
    return [];
  }
  const head = Buffer.alloc(64);
  const found: string[] = [];
  for (const name of names) {
    if (/(-wal|-shm|-journal|\.lock)$/.test(name)) continue;
    const path = join(dir, name);
    if (byHand.has(path)) continue;
    let n = 0;
    try {
      const fd = openSync(path, 'r');
      try {
        n = readSync(fd, head, 0, head.length, 0);
      } finally {
        closeSync(fd);
      }
    } catch {
      continue; // a folder, a socket, or gone
    }
    const text = head.toString('latin1', 0, n);
    // As store/open-recording.ts tells them: the SQLite header, or the NDJSON form's first line.
    if (text.startsWith('SQLite format 3\0') || /^\uFEFF?\{\s*"type"\s*:\s*"recording"\s*,\s*"format"\s*:\s*"agent-proxy\/ndjson"/.test(text)) found.push(path);
  }
  return found;
}

/** Keeps `dir` for the check when it holds a recording (true), instead of its removal now (false). */
export function deferForAgreement(dir: string): boolean {
  if (!enabled || byHand.has(dir)) return false;
  if (pending.some((p) => p.dir === dir)) return true;
  const recordings = recordingsIn(dir);
  if (recordings.length === 0) return false;
  pending.push({ dir, recordings });
  return true;
}

export function takePending(): PendingFolder[] {
  return pending.splice(0);
}
