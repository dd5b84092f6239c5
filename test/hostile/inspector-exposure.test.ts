/**
 * Who can reach what the CLI serves. The inspector hands out the whole recording (page and API), so
 * it listens on loopback only unless --allow-remote says otherwise, and then says so on stderr;
 * record and replay may listen anywhere (a container, a phone on the LAN) but warn. The inspector
 * answers only Host headers that name it (DNS-rebinding defence), whatever the address.
 */
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { scratch } from '../support/temp-dir.js';
import { startAguiAgent } from '../support/agui-agent.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { portOf, runToEnd, startCli } from './cli-child.js';

useCleanups();

const EXAMPLE = 'recordings/examples/agui-sse-run.ndjson';

/** GET on 127.0.0.1:port with the Host header given (or none). */
function get(port: number, path: string, host: string | undefined): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, setHost: false, headers: host === undefined ? {} : { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The one-line refusal: exit 2, nothing on stdout, one `proxy:` line naming the address and the flag. */
function expectRefusal(result: { code: number | null; stdout: string; stderr: string }, host: string): void {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^agent-proxy: the inspector would listen on /);
  expect(lines[0]).toContain(host);
  expect(lines[0]).toContain('--allow-remote');
}

describe('proxy view on an address other machines can reach', () => {
  it('refuses 0.0.0.0 and :: with one line naming --allow-remote', async () => {
    expectRefusal(await runToEnd(['view', EXAMPLE, '--listen', '0.0.0.0:0']), '0.0.0.0');
    expectRefusal(await runToEnd(['view', EXAMPLE, '--listen', '[::]:0']), '::');
  });

  it('with --allow-remote starts, warns on stderr, and still answers only Host headers that name it', async () => {
    const view = startCli(['view', EXAMPLE, '--listen', '0.0.0.0:0', '--allow-remote']);
    const url = /^inspector on (\S+)$/.exec(await view.waitForLine(/^inspector on /))![1];
    expect(url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
    const stderr = await view.waitForStderr(/warning/);
    expect(stderr).toMatch(/^agent-proxy: warning: http:\/\/0\.0\.0\.0:\d+ is reachable from other machines: anyone who can reach it can read the whole recording, through the page or its API\n$/);
    const port = portOf(url);

    // Reached by IP address (as from the LAN): served.
    expect((await get(port, '/api/recording', `127.0.0.1:${port}`)).status).toBe(200);
    expect((await get(port, '/api/recording', `192.0.2.7:${port}`)).status).toBe(200);
    // A host name that merely resolves here (DNS rebinding), or the wrong port: refused.
    const rebinding = await get(port, '/api/recording', `evil.example:${port}`);
    expect(rebinding).toEqual({ status: 403, body: 'forbidden host\n' });
    expect((await get(port, '/api/recording', `127.0.0.1:${port + 1}`)).status).toBe(403);

    // Still serving afterwards, and nothing else was printed.
    const control = await get(port, '/api/exchanges', `localhost:${port}`);
    expect(control.status).toBe(200);
    expect(JSON.parse(control.body)).toHaveLength(2);
    expect(view.alive()).toBe(true);
    expect(await view.stop('SIGINT')).toEqual({ code: 0, signal: null });
    expect(view.stderr().trimEnd().split('\n')).toHaveLength(1);
  });
});

describe('the inspector on loopback (DNS-rebinding defence)', () => {
  it('serves localhost and loopback addresses on its own port, and refuses every other Host', async () => {
    const view = startCli(['view', EXAMPLE, '--listen', '0']);
    const url = /^inspector on (\S+)$/.exec(await view.waitForLine(/^inspector on /))![1];
    const port = portOf(url);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
      expect((await get(port, '/api/recording', host)).status, String(host)).toBe(200);
    }
    for (const host of [`evil.example:${port}`, `10.0.0.1:${port}`, `127.0.0.1:${port + 1}`, '127.0.0.1', `localhost.evil.example:${port}`, `user@127.0.0.1:${port}`, `127.0.0.1:${port}/x`]) {
      expect((await get(port, '/api/recording', host)).status, host).toBe(403);
    }
    // The page itself loads as a browser asks for it.
    const page = await get(port, '/', `127.0.0.1:${port}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<html');
    expect(view.stderr()).toBe('');
    expect(await view.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  });
});

describe('proxy record on an address other machines can reach', () => {
  it('starts, warns on stderr, forwards and records', async () => {
    const agent = await startAguiAgent();
    onCleanup(() => agent.close());
    const out = scratch('agent-proxy-exposure-').file('exposed.db');
    const rec = startCli(['record', '--target', agent.url, '--listen', '0.0.0.0:0', '--out', out]);
    const url = /^listening on (\S+) -> /.exec(await rec.waitForLine(/^listening on /))![1];
    expect(url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
    expect(await rec.waitForStderr(/warning/)).toMatch(
      /^agent-proxy: warning: http:\/\/0\.0\.0\.0:\d+ is reachable from other machines: anyone who can reach it can send requests through the proxy to the target and into the recording\n$/,
    );
    const res = await fetch(`http://127.0.0.1:${portOf(url)}/agent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ threadId: 't', runId: 'r', state: {}, messages: [], tools: [], context: [], forwardedProps: {} }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('RUN_FINISHED');
    await rec.waitForLine(/#1 POST \/agent/);
    expect(await rec.stop('SIGINT')).toEqual({ code: 0, signal: null });
    const reader = RecordingReader.open(out);
    try {
      expect(reader.exchanges().map((e) => [e.method, e.path, e.status])).toEqual([['POST', '/agent', 200]]);
    } finally {
      reader.close();
    }
  });

  it('refuses --ui on such an address without --allow-remote, before any recording file is made', async () => {
    const agent = await startAguiAgent();
    onCleanup(() => agent.close());
    const out = scratch('agent-proxy-exposure-').file('never.db');
    const result = await runToEnd(['record', '--target', agent.url, '--listen', '0', '--out', out, '--ui', '0.0.0.0:0']);
    expectRefusal(result, '0.0.0.0');
    expect(existsSync(out)).toBe(false);
  });

  it('with --ui on such an address and --allow-remote, warns for the proxy and for the inspector', async () => {
    const agent = await startAguiAgent();
    onCleanup(() => agent.close());
    const out = scratch('agent-proxy-exposure-').file('ui.db');
    const rec = startCli(['record', '--target', agent.url, '--listen', '0', '--out', out, '--ui', '0.0.0.0:0', '--allow-remote']);
    const inspector = /^inspector on (\S+)$/.exec(await rec.waitForLine(/^inspector on /))![1];
    const stderr = await rec.waitForStderr(/read the whole recording/);
    // The proxy itself is on loopback: only the inspector is announced as reachable.
    expect(stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^agent-proxy: warning: http:\/\/0\.0\.0\.0:\d+ is reachable from other machines: anyone who can reach it can read the whole recording/)]);
    expect((await get(portOf(inspector), '/api/recording', `127.0.0.1:${portOf(inspector)}`)).status).toBe(200);
    expect(await rec.stop('SIGINT')).toEqual({ code: 0, signal: null });
  });
});

describe('proxy replay on an address other machines can reach', () => {
  it('starts, warns on stderr and serves', async () => {
    const replay = startCli(['replay', EXAMPLE, '--listen', '0.0.0.0:0', '--timing', 'none']);
    const url = /^listening on (\S+)$/.exec(await replay.waitForLine(/^listening on /))![1];
    expect(await replay.waitForStderr(/warning/)).toMatch(/^agent-proxy: warning: http:\/\/0\.0\.0\.0:\d+ is reachable from other machines: anyone who can reach it is served the recorded answers\n$/);
    const miss = await fetch(`http://127.0.0.1:${portOf(url)}/nothing-recorded`);
    expect(miss.status).toBe(404);
    expect(((await miss.json()) as { error: { code: string } }).error.code).toBe('replay_miss');
    expect(replay.alive()).toBe(true);
    expect(await replay.stop('SIGINT')).toEqual({ code: 0, signal: null });
  });

  it('on loopback prints no warning', async () => {
    const replay = startCli(['replay', EXAMPLE, '--listen', '127.0.0.1:0', '--timing', 'none']);
    await replay.waitForLine(/^listening on /);
    expect(await replay.stop('SIGINT')).toEqual({ code: 0, signal: null });
    expect(replay.stderr()).toBe('');
  });
});
