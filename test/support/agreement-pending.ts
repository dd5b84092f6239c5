/**
 * The temp folders that hold recordings, kept until the end of their test file so that the
 * agreement check (agreement-setup.ts) can read every recording the file wrote before they are
 * removed. Small on purpose: temp-dir.ts imports it in every test file; the check's own imports
 * (the judge, the store, the inspector) load only in a file that wrote a recording.
 */
import { closeSync, openSync, readdirSync, readSync, type Dirent } from 'node:fs';
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

/**
 * The regular files under `dir`, by path relative to it. Links are not followed (on Node 20,
 * readdirSync's recursive option follows them, and a test that links node_modules into its folder
 * would have every package's files opened), nor is a node_modules folder entered.
 */
function filesUnder(dir: string): string[] {
  const files: string[] = [];
  const folders = [''];
  while (folders.length > 0) {
    const folder = folders.pop()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(join(dir, folder), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const name = folder === '' ? entry.name : join(folder, entry.name);
      if (entry.isFile()) files.push(name);
      else if (entry.isDirectory() && entry.name !== 'node_modules') folders.push(name);
    }
  }
  return files;
}

/** The recordings in `dir` (a .db or its NDJSON form, told by their first bytes, whatever their names). */
function recordingsIn(dir: string): string[] {
  const names = filesUnder(dir);
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
      continue; // gone, or not readable
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
