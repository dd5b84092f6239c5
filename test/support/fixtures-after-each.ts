import { onCleanup, useCleanups } from './cleanups.js';
import { startAguiAgent, type AguiAgent, type AguiAgentOptions } from './agui-agent.js';
import { scratch } from './temp-dir.js';

/**
 * What a test file starts, undone after each test, newest first, by the one cleanup list of
 * cleanups.ts. Call once at the top of a file: `push` takes any undo step; `agui` and `scratch`
 * start an AG-UI stand-in or a temp folder that are closed and removed that way.
 */
export function fixturesAfterEach() {
  useCleanups();
  return {
    push: onCleanup,
    async agui(options?: AguiAgentOptions): Promise<AguiAgent> {
      const agent = await startAguiAgent(options);
      onCleanup(() => agent.close());
      return agent;
    },
    scratch,
  };
}
