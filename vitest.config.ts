import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { SlowFilesFirst } from './test/support/slow-files-first.js';

// The suite's Node processes (vitest's workers, the CLI, stand-ins, npm offline) reach only servers on
// 127.0.0.1, each test trusting its own CAs (`--ca`, or a NODE_EXTRA_CA_CERTS it sets for its child). A
// machine's NODE_EXTRA_CA_CERTS (often its whole system bundle) is parsed by Node 20, with Node's own roots,
// at every start, before any JavaScript: ~40 ms of CPU per process, on a thousand processes per run.
delete process.env.NODE_EXTRA_CA_CERTS;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Deadlines for a broken test, not timing assertions: CI is a loaded 2-core machine, where
    // spawning the CLI (and its low-priority recording worker) several times can take long.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // At least two files at a time: vitest's default (one worker fewer than the cores) runs them one
    // after the other on a 2-core machine, where most of a file's time is spent waiting for the CLI
    // children, stand-ins and sockets it drives, so one core sat idle.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // A worker runs its files one after the other in one process, importing src/ and the libraries
    // once instead of once per file (that halved the CPU time of the in-process files). So a file
    // that changes process-wide state (an environment variable, the working folder, a listener on
    // process) puts it back when it is done, as test/support/mode-variable.ts does.
    isolate: false,
    // The longest files start first, so that the run does not end on one of them with a core idle.
    sequence: { sequencer: SlowFilesFirst },
    // Without ../shared, one line says that test/conformance/ is skipped and why. The package tests
    // share one `npm pack` of the repository per run, in the folder the second one makes. With
    // AGENT_PROXY_TEST_CPU set, the third counts the CPU of this main process.
    globalSetup: ['test/support/corpus-notice.ts', 'test/support/package-tarball.ts', 'test/support/main-process-cpu.ts'],
    // vite's transform of each module (src/, the tests) is kept on disk between runs, keyed by the file's
    // bytes, vitest's version and this config, so that a run after the first does not transform again:
    // that was over half of the main process's CPU (30 small files: 6.7 -> 2.9 s). A fresh clone transforms.
    experimental: { fsModuleCache: true, fsModuleCachePath: '.cache/vitest-modules' },
    // The protocols declare the schemas every registry loads: tests that make a registry alone get them
    // too. After each file: validate, show, findings and the inspector agree on every recording it wrote, once the
    // cleanups a file left registered have run.
    setupFiles: ['test/support/cpu-per-file.ts', 'test/support/protocol-catalog.ts', 'test/support/temp-dir-setup.ts', 'test/support/agreement-setup.ts', 'test/support/cleanup-setup.ts'],
  },
});
