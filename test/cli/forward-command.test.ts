import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runThroughForwardProxy } from '../../src/cli/forward-command.js';
import { scratch } from '../support/temp-dir.js';
import { waitFor } from '../support/waits.js';

describe('runThroughForwardProxy', () => {
  it("exits with the command's code, the proxy URL carrying --proxy-auth's credentials percent-encoded", async () => {
    const caDir = join(scratch().dir, 'ca');
    const check = `const p = new URL(process.env.HTTPS_PROXY); process.exit(p.host === '127.0.0.1:40123' && decodeURIComponent(p.username) === 'us er' && decodeURIComponent(p.password) === 's:cr@t' && process.env.NODE_USE_ENV_PROXY === '1' ? 4 : 1)`;
    expect(await runThroughForwardProxy([process.execPath, '-e', check], 'http://127.0.0.1:40123', caDir, 'us er:s:cr@t')).toBe(4);
  });

  it('passes SIGTERM on, and exits 128 + n when signal n ended the command', async () => {
    const caDir = join(scratch().dir, 'ca');
    const listening = process.listenerCount('SIGTERM');
    // The command waits (its stdin is the test's, so it reads nothing) until the stop reaches it.
    const running = runThroughForwardProxy([process.execPath, '-e', 'setInterval(() => {}, 1000)'], 'http://127.0.0.1:40123', caDir);
    await waitFor(() => process.listenerCount('SIGTERM') > listening, 'the stop signals handled');
    // What a `kill <pid>` of ours does, without signalling the test's own process.
    process.emit('SIGTERM');
    expect(await running).toBe(128 + 15);
    expect(process.listenerCount('SIGTERM')).toBe(listening);
  });
});
