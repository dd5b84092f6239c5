// A small timing loop for the micro benchmarks (bench/micro.js): warm up, then several rounds of a
// fixed number of iterations, each timed with process.cpuUsage(). CPU time, not wall time: on a
// shared machine another process's work makes this one wait, which wall time counts and CPU time
// mostly does not. process.cpuUsage() counts every thread of the process (V8's concurrent GC and
// compiler threads too), so a figure includes the garbage collection its allocations cause.

/** CPU µs (user + system, all threads) used since `since` (a process.cpuUsage() value). */
const cpuMicros = (since) => {
  const used = process.cpuUsage(since);
  return used.user + used.system;
};

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * Times `iterate(state, i)`, called `iterations` times per round, each call being `opsPerIteration`
 * operations (a chunk of 64 events is 64). Untimed: `setup()` before the warm-up and before each
 * round (its result is the round's state), and `teardown(state)` after it. Timed: `finish(state)`
 * after the last iteration of a round, for work the iterations leave behind (the last partial
 * batch a writer flushes). The warm-up runs `warmup` iterations first, so that the code measured
 * is optimised and the first round is not the slowest.
 *
 * Returns the median nanoseconds per operation over the rounds, the operations per CPU second it
 * gives, and each round's figure (their spread shows how steady the measure was).
 */
export function measureCpu({ iterations, rounds = 5, warmup = Math.ceil(iterations / 4), opsPerIteration = 1, setup = () => undefined, iterate, finish, teardown }) {
  const warm = setup();
  try {
    for (let i = 0; i < warmup; i++) iterate(warm, i);
    finish?.(warm);
  } finally {
    teardown?.(warm);
  }
  const perRound = [];
  for (let r = 0; r < rounds; r++) {
    const state = setup();
    try {
      const start = process.cpuUsage();
      for (let i = 0; i < iterations; i++) iterate(state, i);
      finish?.(state);
      perRound.push((cpuMicros(start) * 1000) / (iterations * opsPerIteration));
    } finally {
      teardown?.(state);
    }
  }
  const nsPerOp = median(perRound);
  return { nsPerOp, opsPerSecond: 1e9 / nsPerOp, rounds: perRound };
}
