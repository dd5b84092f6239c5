/**
 * Where the suite's minutes go, on a machine shared with other work (where a file's wall time says
 * little): with AGENT_PROXY_TEST_CPU=<file>, each test file appends one JSON line to <file> with the
 * CPU it cost, in its vitest worker (user + system) and in the child processes it started and that
 * ended (the CLI, npm, a browser: Linux only, from /proc), and its wall time.
 * `node scripts/test-cpu.mjs <file>` sums them up. Off by default: nothing is measured or written.
 *
 * The worker's CPU between the end of its previous file (or its own start) and this file's first hook
 * is the file's too, counted apart as `loadMs`: importing this setup and the test file (vite's transform
 * happens in vitest's main process, not here), the modules it imports that the worker had not loaded
 * yet, and collecting its tests. With `isolate: false` a worker keeps its modules, so the first file of
 * a worker pays for src/ and the libraries, the others for what is new to them.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';

const out = process.env.AGENT_PROXY_TEST_CPU;

/** CPU of the children this process has waited for, in ms (10 ms ticks), or null without /proc. */
function endedChildrenMs(): number | null {
  if (!existsSync('/proc/self/stat')) return null;
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/**
 * Every Node process the tests start (they inherit the worker's environment) loads child-cpu.cjs,
 * which appends its argv and CPU to `<out>.children` at exit, so the children's share can be split by
 * command. The test file's name goes with them in AGENT_PROXY_CPU_TEST_FILE.
 */
function countChildrenByCommand(file: string): () => void {
  const preload = `--require ${fileURLToPath(new URL('./child-cpu.cjs', import.meta.url))}`;
  const before = { options: process.env.NODE_OPTIONS, out: process.env.AGENT_PROXY_CHILD_CPU, file: process.env.AGENT_PROXY_CPU_TEST_FILE };
  process.env.NODE_OPTIONS = [before.options, preload].filter(Boolean).join(' ');
  process.env.AGENT_PROXY_CHILD_CPU = `${out}.children`;
  process.env.AGENT_PROXY_CPU_TEST_FILE = file;
  const put = (name: string, value: string | undefined) => (value === undefined ? delete process.env[name] : (process.env[name] = value));
  return () => {
    put('NODE_OPTIONS', before.options);
    put('AGENT_PROXY_CHILD_CPU', before.out);
    put('AGENT_PROXY_CPU_TEST_FILE', before.file);
  };
}

/** The worker's CPU in ms (user + system) since it started. */
const workerMs = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};

/** Kept on the process, not in this module, in case the setup file is evaluated again for each file. */
const state = globalThis as { agentProxyLastFileEndMs?: number };

if (out) {
  let restore = () => {};
  let start = process.cpuUsage();
  let loadMs = 0;
  let children: number | null = null;
  let wall = 0;
  beforeAll(() => {
    restore = countChildrenByCommand(relative(process.cwd(), expect.getState().testPath ?? '?'));
    start = process.cpuUsage();
    loadMs = workerMs() - (state.agentProxyLastFileEndMs ?? 0);
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
      loadMs: Math.round(loadMs),
      worker: process.pid,
    };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
    restore();
    state.agentProxyLastFileEndMs = workerMs();
  });
}
