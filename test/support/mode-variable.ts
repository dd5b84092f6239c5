import { afterEach, beforeEach } from 'vitest';
import { MODE_VARIABLE } from '../../src/fixture/fixture-mode.js';

/**
 * For a file whose tests set AGENT_PROXY_MODE: each test starts without it (a developer's shell may
 * have it set), and the value the run started with is back after each.
 */
export function clearModeVariableEachTest(): void {
  const before = process.env[MODE_VARIABLE];
  beforeEach(() => void delete process.env[MODE_VARIABLE]);
  afterEach(() => {
    if (before === undefined) delete process.env[MODE_VARIABLE];
    else process.env[MODE_VARIABLE] = before;
  });
}
