// Sums V8's --trace-gc-nvp lines per isolate (the forwarding or capture thread, each worker), so a
// change's effect on garbage collection reads as counts and bytes rather than as scrolled lines.
// Run:  node --trace-gc-nvp bench/record-pipeline.js --quick --threads > OUT; node bench/gc-nvp-summary.js OUT
// Per isolate: scavenges, mark-compacts, bytes promoted by scavenges, bytes that survived a scavenge in
// the young generation, and bytes mark-compacts freed (what died old: promoted or allocated old).
import { readFileSync } from 'node:fs';

const file = process.argv[2];
if (!file) {
  console.error('usage: node bench/gc-nvp-summary.js FILE (the output of a node --trace-gc-nvp run)');
  process.exit(2);
}
const isolates = new Map();
for (const line of readFileSync(file, 'utf8').split('\n')) {
  const head = /^\[(\d+):(0x[0-9a-f]+)\]/.exec(line);
  if (!head || !line.includes(' gc=')) continue;
  const field = Object.fromEntries([...line.matchAll(/(\w+)=([^ ,]+)/g)].map((m) => [m[1], m[2]]));
  const sums = isolates.get(head[2]) ?? { scavenges: 0, markCompacts: 0, promoted: 0, survived: 0, freedByMarkCompacts: 0 };
  if (field.gc === 's') {
    sums.scavenges++;
    sums.promoted += Number(field.promoted ?? 0);
    sums.survived += Number(field.new_space_survived ?? 0);
  } else {
    sums.markCompacts++;
    sums.freedByMarkCompacts += Number(field.total_size_before) - Number(field.total_size_after);
  }
  isolates.set(head[2], sums);
}
const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
for (const [isolate, s] of isolates) {
  console.log(`${isolate}: ${s.scavenges} scavenges, ${s.markCompacts} mark-compacts; promoted ${mb(s.promoted)}, survived in the young generation ${mb(s.survived)}, freed by mark-compacts ${mb(s.freedByMarkCompacts)}`);
}
