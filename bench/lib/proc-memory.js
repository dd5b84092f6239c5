// Where a process's resident memory lies, from /proc/<pid>/smaps (Linux), for the benches: read from
// outside, so that looking does not add to what is looked at (a probe inside the recorder, reading
// smaps and posting each thread's heap figures, added 5–30 MB to the peak it was measuring).
import { readFileSync } from 'node:fs';

/** glibc makes each thread arena (malloc's memory for threads other than the main one) as a 64 MiB-aligned reservation of 64 MiB. */
const ARENA_BYTES = 64 * 1024 * 1024;

/**
 * Resident kB by kind: `file` (mapped files: the node binary, shared libraries, better-sqlite3's
 * addon, SQLite's -shm), `nodeBinary` (the part of `file` that is node's own code and data), `brk`
 * (the main arena: what the main thread mallocs, and every ArrayBuffer its isolate allocates,
 * wherever it is freed), `arenas` (the other threads' malloc arenas: the recording worker's SQLite
 * and isolate, V8's helper threads), and `otherAnon` (both V8 heaps' pages, thread stacks, and
 * allocations large enough to be mapped on their own).
 */
export function residentByKind(pid) {
  const lines = readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n');
  const out = { file: 0, nodeBinary: 0, brk: 0, arenas: 0, otherAnon: 0 };
  const maps = [];
  let current;
  for (const line of lines) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (head) {
      current = { start: BigInt(`0x${head[1]}`), end: BigInt(`0x${head[2]}`), inode: head[3], name: head[4], rss: 0 };
      maps.push(current);
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && current) current.rss = Number(rss[1]);
  }
  const arenaBytes = BigInt(ARENA_BYTES);
  for (let i = 0; i < maps.length; i++) {
    const map = maps[i];
    if (map.inode !== '0' || map.name.startsWith('/')) {
      out.file += map.rss;
      if (/\/node$/.test(map.name)) out.nodeBinary += map.rss;
    } else if (map.name === '[heap]') out.brk += map.rss;
    else if (map.name === '' && map.start % arenaBytes === 0n && arenaEnd(maps, i) - map.start === arenaBytes) out.arenas += map.rss;
    else out.otherAnon += map.rss;
  }
  return out;
}

/** Where the reservation that starts at maps[i] ends: an arena's used part is followed by its unused rest, if any. */
function arenaEnd(maps, i) {
  const next = maps[i + 1];
  return next && next.start === maps[i].end && next.name === '' && next.inode === '0' ? next.end : maps[i].end;
}
