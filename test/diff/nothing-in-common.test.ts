import { describe, expect, it } from 'vitest';
import { startInspector } from '../../src/ui/server/inspector-server.js';
import { AGUI_EXAMPLE, PI_EXAMPLE } from '../cli/cli-fixtures.js';
import { runCli } from '../cli/run-cli.js';

const REFUSAL = `the recordings have nothing in common to compare: ${AGUI_EXAMPLE} holds agui exchanges, ${PI_EXAMPLE} holds pi-rest and pi-daemon-rpc exchanges`;

describe('recordings with nothing in common', () => {
  it('`diff a b` refuses them with one line, exit 2', async () => {
    const cli = await runCli(['diff', AGUI_EXAMPLE, PI_EXAMPLE]);
    expect({ code: cli.code, stderr: cli.stderr, stdout: cli.stdout }).toEqual({ code: 2, stderr: `agent-proxy: ${REFUSAL}\n`, stdout: '' });
  });

  it('`view a --diff b` refuses them by the same rule, in the same words', async () => {
    let started: Awaited<ReturnType<typeof startInspector>> | undefined;
    const attempt = startInspector({ recording: AGUI_EXAMPLE, diff: PI_EXAMPLE, listen: 0 }).then((inspector) => {
      started = inspector;
      return inspector;
    });
    try {
      await expect(attempt).rejects.toMatchObject({ code: 'E_USAGE', message: REFUSAL });
    } finally {
      await started?.close();
    }
  });

  it('recordings that share a protocol are still shown side by side', async () => {
    const inspector = await startInspector({ recording: AGUI_EXAMPLE, diff: AGUI_EXAMPLE, listen: 0 });
    await inspector.close();
  });
});
