import type { TestProject } from 'vitest/node';
import { startReplay, strictFailure } from 'agent-proxy';

declare module 'vitest' {
  export interface ProvidedContext {
    agentUrl: string;
  }
}

/** vitest globalSetup: the recorded agent run, served on a free port while the tests run. */
export default async function setup(project: TestProject) {
  const replay = await startReplay({ recording: 'fixtures/agent-run.ndjson', listen: 0, timing: 'none', strict: true });
  project.provide('agentUrl', replay.url);
  return async () => {
    // --strict: a request the recording cannot answer, or a recorded exchange no test asked for, fails the run.
    const failure = strictFailure(await replay.close());
    if (failure) {
      // vitest 4.1 prints an error thrown here but still exits 0 (fixed by vitest-dev/vitest#10794).
      process.exitCode = 1;
      throw new Error(failure);
    }
  };
}
