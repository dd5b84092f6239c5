// What a WeakMap keyed by a short-lived object costs the young generation on this Node, against the same
// link kept in a field: the shape of TrafficRecorder's judge → exchange and MessagePipeline's
// checker → judge maps, which every claimed exchange's recording fills. 2,000,000 short-lived pairs.
// Run:  node --trace-gc-nvp bench/weakmap-retention.js field|weakmap|none > OUT; node bench/gc-nvp-summary.js OUT
const mode = process.argv[2] ?? 'weakmap';
if (!['none', 'field', 'weakmap'].includes(mode)) throw new Error('mode: none, field or weakmap');
const map = new WeakMap();
for (let i = 0; i < 2_000_000; i++) {
  const judge = { i, state: new Array(8).fill(i) };
  const exchange = { id: i, judge, start: { path: `/p${i}`, headers: ['a', `b${i}`] } };
  if (mode === 'weakmap') map.set(judge, exchange);
  else if (mode === 'field') judge.exchange = exchange;
}
