// CPU time from /proc (Linux), for the benches: user + system, in ms; clock ticks are 10 ms.
import { readdirSync, readFileSync } from 'node:fs';

const ticksMs = (stat) => {
  const fields = stat.split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

/** CPU time a process has used, all threads. */
export function processCpuMs(pid) {
  return ticksMs(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/**
 * CPU time a running process has used, all threads, from each thread's schedstat (ns, so finer than the 10 ms
 * ticks of processCpuMs); NaN where /proc has none.
 */
export function runningCpuMs(pid) {
  let ns = 0;
  let tasks;
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return NaN;
  }
  for (const task of tasks) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended meanwhile.
    }
  }
  return ns / 1e6;
}

/** CPU time of each thread of a process, by thread id (a thread that ends meanwhile is left out). */
export function threadCpuMs(pid) {
  const threads = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      threads.set(Number(tid), ticksMs(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')));
    } catch {
      // A thread that ended meanwhile.
    }
  }
  return threads;
}

/** Resolves once process `pid` has used no CPU for 50 ms (at most 5 s): whatever it was doing is done. */
export async function settled(pid) {
  const until = Date.now() + 5_000;
  let last = processCpuMs(pid);
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = processCpuMs(pid);
    if (now === last) return;
    last = now;
  }
}

/** This process's waited-for children's CPU (cutime + cstime): a child's whole CPU is added once it has exited and been reaped. */
export function reapedChildrenCpuMs() {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}
