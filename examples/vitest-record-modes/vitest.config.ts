import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Records fixtures/agent-run.ndjson the first time, replays it ever after (AGENT_PROXY_MODE=replay in CI).
    globalSetup: ['./test/agent-fixture.ts'],
  },
});
