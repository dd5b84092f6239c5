import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Deadlines for a broken test, not timing assertions: CI is a loaded 2-core machine, where
    // spawning the CLI (and its low-priority recording worker) several times can take long.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Without ../shared, one line says that test/conformance/ is skipped and why.
    globalSetup: ['test/support/corpus-notice.ts'],
    // After each file: validate, show, findings and the inspector agree on every recording it wrote.
    setupFiles: ['test/support/agreement-setup.ts'],
  },
});
