import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Serves fixtures/agent-run.ndjson for the whole run and fails it on any miss or unused exchange.
    globalSetup: ['./test/agent-fixture.ts'],
  },
});
