import { afterEach } from 'vitest';
import { tempDir, type TempDir } from './temp-dir.js';
import { startAguiAgent, type AguiAgent, type AguiAgentOptions } from './agui-agent.js';

/**
 * What a test file starts, undone after each test, newest first. Call once at the top of a file:
 * `push` takes any undo step; `agui` and `scratch` start an AG-UI stand-in or a temp folder that
 * are closed and removed that way.
 */
export function fixturesAfterEach() {
  const undo: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (undo.length) await undo.pop()!();
  });
  return {
    push(step: () => Promise<void> | void): void {
      undo.push(step);
    },
    async agui(options?: AguiAgentOptions): Promise<AguiAgent> {
      const agent = await startAguiAgent(options);
      undo.push(() => agent.close());
      return agent;
    },
    scratch(prefix?: string): TempDir {
      const dir = tempDir(prefix);
      undo.push(() => dir.cleanup());
      return dir;
    },
  };
}
