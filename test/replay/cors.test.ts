/**
 * CORS in `replay` and `fixture` without a browser: preflights and answers as node:http sees them.
 * A browser page on another origin sends a preflight before its JSON POST, and reads an answer only
 * when it names the page's origin (the Chromium tests in test/cors/ run the real thing).
 */
import { describe, expect, it } from 'vitest';
import { PREFLIGHT_MAX_AGE, startAguiAgent } from '../support/agui-agent.js';
import { rawRequest, runInput, type RawResponse } from '../record/record-helpers.js';
import { onCleanup, record, replay, useCleanups } from './replay-helpers.js';
import { corsAnswerHeaders, PREFLIGHT_MAX_AGE_SECONDS } from '../../src/replay/http/cors.js';
import { startFixture } from '../../src/fixture/start-fixture.js';
import { spawnCli } from '../cli/run-cli.js';

useCleanups();

const PAGE = 'http://127.0.0.1:3000';
const SSE_HEADERS = { 'content-type': 'application/json', accept: 'text/event-stream' };
const PREFLIGHT = { origin: PAGE, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' };

/** A recording of one AG-UI run (POST /agent); with `preflight`, a browser's preflight to a CORS-answering agent first. */
async function runRecording(options: { preflight?: boolean } = {}): Promise<string> {
  const agent = await startAguiAgent({ cors: options.preflight });
  onCleanup(() => agent.close());
  const rec = await record(agent.url);
  if (options.preflight) expect((await rawRequest({ url: rec.url }, 'OPTIONS', '/agent', PREFLIGHT)).status).toBe(204);
  const origin: Record<string, string> = options.preflight ? { origin: PAGE } : {};
  expect((await rawRequest({ url: rec.url }, 'POST', '/agent', { ...SSE_HEADERS, ...origin }, JSON.stringify(runInput()))).status).toBe(200);
  await rec.finish();
  return rec.out;
}

const post = (url: string, headers: Record<string, string> = {}, path = '/agent'): Promise<RawResponse> => rawRequest({ url }, 'POST', path, { ...SSE_HEADERS, ...headers }, JSON.stringify(runInput()));
const preflight = (url: string, headers: Record<string, string> = PREFLIGHT, path = '/agent'): Promise<RawResponse> => rawRequest({ url }, 'OPTIONS', path, headers);

describe('corsAnswerHeaders', () => {
  it('names the request origin in place of a recorded one, adds Origin to Vary and exposes the headers a page cannot read unasked', () => {
    const recorded = ['Content-Type', 'text/event-stream', 'Access-Control-Allow-Origin', 'http://localhost:3000', 'Vary', 'Accept-Encoding', 'X-Request-Id', 'r-1'];
    expect(corsAnswerHeaders(recorded, { origin: PAGE })).toEqual([
      'Content-Type', 'text/event-stream',
      'X-Request-Id', 'r-1',
      'Access-Control-Allow-Origin', PAGE,
      'Access-Control-Expose-Headers', 'X-Request-Id',
      'Vary', 'Accept-Encoding, Origin',
    ]);
  });

  it('allows credentials when the request carried a cookie or an Authorization header, and keeps what the answer says itself', () => {
    expect(corsAnswerHeaders([], { origin: PAGE, cookie: 'a=1' })).toEqual(['Access-Control-Allow-Origin', PAGE, 'Access-Control-Allow-Credentials', 'true', 'Vary', 'Origin']);
    expect(corsAnswerHeaders([], { origin: PAGE, authorization: 'Bearer x' })).toContain('Access-Control-Allow-Credentials');
    expect(corsAnswerHeaders([], { origin: PAGE })).not.toContain('Access-Control-Allow-Credentials');
    const own = ['Access-Control-Expose-Headers', 'X-A', 'X-A', '1', 'Vary', '*'];
    expect(corsAnswerHeaders(own, { origin: PAGE })).toEqual(['Access-Control-Expose-Headers', 'X-A', 'X-A', '1', 'Access-Control-Allow-Origin', PAGE, 'Vary', '*']);
  });

  it('leaves the answer to a request without an Origin as it is', () => {
    const recorded = ['Access-Control-Allow-Origin', '*', 'Vary', 'Accept'];
    expect(corsAnswerHeaders(recorded, {})).toEqual(recorded);
  });
});

describe('replay --cors on (the default)', () => {
  it('answers a preflight itself, allowing the origin, method and headers asked for; it is no miss, not even under --strict', async () => {
    const served = await replay(await runRecording(), { strict: true });
    const answer = await preflight(served.url, { ...PREFLIGHT, 'access-control-request-headers': 'content-type, authorization' });
    expect(answer.status).toBe(204);
    expect(answer.headers).toMatchObject({
      'access-control-allow-origin': PAGE,
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'content-type, authorization',
      'access-control-allow-credentials': 'true',
      'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
    });
    expect(answer.headers.vary).toMatch(/\bOrigin\b/);
    expect(answer.body.length).toBe(0);

    const run = await post(served.url, { origin: PAGE });
    expect(run.status).toBe(200);
    expect(run.headers['access-control-allow-origin']).toBe(PAGE);
    expect(run.headers.vary).toMatch(/\bOrigin\b/);
    expect(run.headers['access-control-allow-credentials']).toBeUndefined();
    expect(run.body.toString()).toContain('Hello');

    expect(served.missed).toEqual([]);
    expect(served.served.map((s) => s.method)).toEqual(['POST']);
    expect((await served.close()).ok).toBe(true);
  });

  it('allows credentials on an answer to a request that carried them, and adds nothing to a request without an Origin', async () => {
    const served = await replay(await runRecording(), { reuse: true });
    expect((await post(served.url, { origin: PAGE, authorization: 'Bearer t' })).headers['access-control-allow-credentials']).toBe('true');
    const plain = await post(served.url);
    expect(plain.status).toBe(200);
    expect(Object.keys(plain.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    expect(plain.headers.vary).toBeUndefined();
  });

  it("lets the page read what the replay makes up: a miss's answer, a status fault", async () => {
    const served = await replay(await runRecording(), { faults: ['status=503,path=/agent'] });
    const miss = await post(served.url, { origin: PAGE }, '/other');
    expect(miss.headers['access-control-allow-origin']).toBe(PAGE);
    const fault = await post(served.url, { origin: PAGE });
    expect(fault.status).toBe(503);
    expect(fault.headers['access-control-allow-origin']).toBe(PAGE);
  });

  it('a preflight is not a request a fault counts: nth=1 is the first POST, after its preflight', async () => {
    const served = await replay(await runRecording(), { faults: ['status=503,nth=1'] });
    expect((await preflight(served.url)).status).toBe(204);
    expect((await post(served.url, { origin: PAGE })).status).toBe(503);
  });

  it('plays a recorded preflight for its route, under the live origin, as often as the browser asks; never unused', async () => {
    const recording = await runRecording({ preflight: true });
    const served = await replay(recording, { strict: true });
    for (const origin of [PAGE, 'http://127.0.0.1:4000']) {
      const answer = await preflight(served.url, { ...PREFLIGHT, origin });
      expect(answer.status).toBe(204);
      // The recorded agent's Max-Age, not the replay's.
      expect(answer.headers['access-control-max-age']).toBe(String(PREFLIGHT_MAX_AGE));
      expect(answer.headers['access-control-allow-origin']).toBe(origin);
    }
    expect(served.served.map((s) => `${s.method} ${s.exchangeId} ${s.reused}`)).toEqual(['OPTIONS 1 false', 'OPTIONS 1 true']);
    // Another route has no recorded preflight: the replay answers it.
    expect((await preflight(served.url, PREFLIGHT, '/elsewhere')).headers['access-control-max-age']).toBe(String(PREFLIGHT_MAX_AGE_SECONDS));
    expect((await post(served.url, { origin: 'http://127.0.0.1:4000' })).headers['access-control-allow-origin']).toBe('http://127.0.0.1:4000');
    expect(served.missed).toEqual([]);
    expect((await served.close()).ok).toBe(true);
  });

  it('a recorded preflight nobody asks for again (a client without a browser cache to fill) is not unused under --strict', async () => {
    const served = await replay(await runRecording({ preflight: true }), { strict: true });
    expect((await post(served.url)).status).toBe(200);
    const summary = await served.close();
    expect(summary.unused).toEqual([]);
    expect(summary.recorded).toBe(1);
    expect(summary.ok).toBe(true);
  });
});

describe('replay --cors off', () => {
  it('serves only what was recorded: a preflight is a miss, an answer names no origin', async () => {
    const served = await replay(await runRecording(), { cors: false, strict: true });
    expect((await preflight(served.url)).headers['access-control-allow-origin']).toBeUndefined();
    expect(served.missed.map((m) => m.request.method)).toEqual(['OPTIONS']);
    const run = await post(served.url, { origin: PAGE });
    expect(run.status).toBe(200);
    expect(run.headers['access-control-allow-origin']).toBeUndefined();
    expect((await served.close()).ok).toBe(false);
  });

  it('matches a recorded preflight like any request, and sends its recorded origin unchanged', async () => {
    const served = await replay(await runRecording({ preflight: true }), { cors: false });
    expect((await preflight(served.url, { ...PREFLIGHT, origin: 'http://127.0.0.1:4000' })).headers['access-control-allow-origin']).toBe(PAGE);
    expect((await preflight(served.url)).status).not.toBe(204);
    expect(served.missed.map((m) => m.reason)).toEqual(['exhausted']);
  });
});

describe('fixture and CORS', () => {
  it('a replaying fixture answers preflights (cors on by default), and with cors: false a preflight misses', async () => {
    const recording = await runRecording();
    for (const cors of [undefined, false]) {
      const fixture = await startFixture({ recording, mode: 'replay', listen: 0, timing: 'none', strict: true, ...(cors === undefined ? {} : { cors }) });
      onCleanup(() => fixture.close().then(() => undefined));
      const answer = await preflight(fixture.url);
      expect(answer.headers['access-control-allow-origin']).toBe(cors === false ? undefined : PAGE);
      expect((await post(fixture.url, { origin: PAGE })).headers['access-control-allow-origin']).toBe(cors === false ? undefined : PAGE);
      const summary = await fixture.close();
      expect(summary.misses.length).toBe(cors === false ? 1 : 0);
      expect(summary.ok).toBe(cors !== false);
    }
  });
});

describe('fixture and CORS: new episodes', () => {
  it('a miss forwarded to a target that knows nothing of CORS reaches the page too; its preflight is not forwarded', async () => {
    const recording = await runRecording();
    const agent = await startAguiAgent();
    onCleanup(() => agent.close());
    const fixture = await startFixture({ recording, mode: 'new-episodes', target: agent.url, listen: 0, timing: 'none' });
    onCleanup(() => fixture.close().then(() => undefined));
    expect((await preflight(fixture.url, PREFLIGHT, '/new')).status).toBe(204);
    const forwarded = await post(fixture.url, { origin: PAGE }, '/new');
    expect(forwarded.status).toBe(200);
    expect(forwarded.headers['access-control-allow-origin']).toBe(PAGE);
    expect(agent.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /new']);
    expect((await fixture.close()).forwarded).toBe(1);
  });
});

describe('--cors on the command line', () => {
  for (const command of ['replay', 'fixture'] as const) {
    it(`${command} --cors off leaves a preflight a miss; the default answers it`, async () => {
      const recording = await runRecording();
      for (const flags of [[], ['--cors', 'off']]) {
        const cli = spawnCli([command, recording, '--listen', '0', '--timing', 'none', '--json', ...(command === 'fixture' ? ['--mode', 'replay'] : []), ...flags]);
        onCleanup(() => void cli.child.kill('SIGKILL'));
        const { url } = JSON.parse(await cli.waitForLine(/"event":"listening"/)) as { url: string };
        expect((await preflight(url)).headers['access-control-allow-origin']).toBe(flags.length === 0 ? PAGE : undefined);
        cli.child.kill('SIGINT');
        await cli.exited;
        const summary = JSON.parse(cli.lines.find((l) => l.includes('"event":"summary"'))!) as { misses: number };
        expect(summary.misses).toBe(flags.length === 0 ? 0 : 1);
      }
    });
  }

  it('refuses --cors where it means nothing (--stdio)', async () => {
    const cli = spawnCli(['replay', '--stdio', 'any.db', '--cors', 'off']);
    expect((await cli.exited).code).toBe(2);
    expect(cli.stderr()).toContain('--cors goes with the HTTP replay, not --stdio');
  });
});
