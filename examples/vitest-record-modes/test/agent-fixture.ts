import type { TestProject } from 'vitest/node';
import { startFixture, strictFailure } from 'agent-proxy';

declare module 'vitest' {
  export interface ProvidedContext {
    agentUrl: string;
  }
}

/**
 * vitest globalSetup: mode once records the agent into fixtures/agent-run.ndjson on the first run and
 * replays that recording on every later one. CI sets AGENT_PROXY_MODE=replay: it replays only and
 * never reaches the network, and a miss or a recorded exchange no test asked for fails the run.
 */
export default async function setup(project: TestProject) {
  const fixture = await startFixture({
    recording: 'fixtures/agent-run.ndjson',
    target: process.env.AGENT_URL ?? 'http://127.0.0.1:8000',
    mode: 'once',
    listen: 0,
    timing: 'none',
    strict: true,
  });
  project.provide('agentUrl', fixture.url);
  return async () => {
    const summary = await fixture.close();
    if (!summary.ok) {
      // vitest 4.1 prints an error thrown here but still exits 0 (fixed by vitest-dev/vitest#10794).
      process.exitCode = 1;
      throw new Error(strictFailure(summary));
    }
  };
}
