/**
 * Where the suite's minutes go, on a machine shared with other work (where a file's wall time says
 * little): with AGENT_PROXY_TEST_CPU=<file>, each test file appends one JSON line to <file> with the
 * CPU it cost, in its vitest worker (user + system) and in the child processes it started and that
 * ended (the CLI, npm, a browser: Linux only, from /proc), and its wall time.
 * `node scripts/test-cpu.mjs <file>` sums them up. Off by default: nothing is measured or written.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';

const out = process.env.AGENT_PROXY_TEST_CPU;

/** CPU of the children this process has waited for, in ms (10 ms ticks), or null without /proc. */
function endedChildrenMs(): number | null {
  if (!existsSync('/proc/self/stat')) return null;
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

if (out) {
  let start = process.cpuUsage();
  let children: number | null = null;
  let wall = 0;
  beforeAll(() => {
    start = process.cpuUsage();
    children = endedChildrenMs();
    wall = performance.now();
  });
  // Registered before the file's own hooks, so it runs after them (vitest runs afterAll hooks last first).
  afterAll(() => {
    const used = process.cpuUsage(start);
    const now = endedChildrenMs();
    const file = relative(process.cwd(), expect.getState().testPath ?? '?');
    const line = {
      file,
      selfMs: Math.round((used.user + used.system) / 1000),
      childrenMs: now === null || children === null ? null : now - children,
      wallMs: Math.round(performance.now() - wall),
    };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  });
}
