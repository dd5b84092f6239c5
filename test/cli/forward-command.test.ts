import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runThroughForwardProxy } from '../../src/cli/forward-command.js';
import { scratch } from '../support/temp-dir.js';

const never = new Promise<NodeJS.Signals>(() => {});

describe('runThroughForwardProxy', () => {
  it("exits with the command's code, the proxy URL carrying --proxy-auth's credentials percent-encoded", async () => {
    const caDir = join(scratch().dir, 'ca');
    const check = `const p = new URL(process.env.HTTPS_PROXY); process.exit(p.host === '127.0.0.1:40123' && decodeURIComponent(p.username) === 'us er' && decodeURIComponent(p.password) === 's:cr@t' && process.env.NODE_USE_ENV_PROXY === '1' ? 4 : 1)`;
    expect(await runThroughForwardProxy([process.execPath, '-e', check], 'http://127.0.0.1:40123', caDir, never, 'us er:s:cr@t')).toBe(4);
  });

  it('passes the stop signal on, and exits 128 + n when signal n ended the command', async () => {
    const caDir = join(scratch().dir, 'ca');
    let stop!: (signal: NodeJS.Signals) => void;
    const stopped = new Promise<NodeJS.Signals>((resolve) => (stop = resolve));
    // The command waits (its stdin is the test's, so it reads nothing) until the stop reaches it.
    const running = runThroughForwardProxy([process.execPath, '-e', 'setInterval(() => {}, 1000)'], 'http://127.0.0.1:40123', caDir, stopped);
    stop('SIGTERM');
    expect(await running).toBe(128 + 15);
  });
});
