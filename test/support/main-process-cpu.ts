/**
 * vitest global setup: with AGENT_PROXY_TEST_CPU=<file> (test/support/cpu-per-file.ts), appends the CPU
 * of vitest's main process to `<file>.main` when the run ends: vite's transform of every module the
 * workers import, the reporters, the workers' messages. The test files' lines leave it out.
 * `node scripts/test-cpu.mjs <file>` adds it to the run's total. Off by default.
 */
import { appendFileSync } from 'node:fs';

export default function setup(): (() => void) | undefined {
  const out = process.env.AGENT_PROXY_TEST_CPU;
  if (!out) return undefined;
  return () => {
    const used = process.cpuUsage();
    appendFileSync(`${out}.main`, `${JSON.stringify({ mainMs: Math.round((used.user + used.system) / 1000) })}\n`);
  };
}
