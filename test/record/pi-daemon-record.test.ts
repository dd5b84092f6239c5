/**
 * `proxy record` in front of the Pi daemon stand-in, REST side: the client sees exactly what it
 * sees direct, and the recording holds every exchange as `pi-rest` with valid bodies. Also: a
 * unix-socket target (REST and WebSocket) and `proxy show` on a Pi recording.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { RecordingReader } from '../../src/store/recording-reader.js';
import { PI_SESSION_API_ID } from '../../src/protocols/pi-rest/schemas.js';
import { api, bearer, daemon, errorsOf, expectAllValid, rawRequest, record, useCleanups, wsExchanges, wsOpen, type ApiResult } from './pi-helpers.js';
import { scratch } from '../support/temp-dir.js';

useCleanups();

const REPO = fileURLToPath(new URL('../..', import.meta.url));

interface Step {
  method: string;
  path: string;
  result: ApiResult;
}

/**
 * The whole REST lifecycle, driven against `base` (direct or through the proxy). Paths that come
 * from responses (ticket locations, ETags) are taken from what this client saw, so a proxy that
 * altered them would change the later requests too.
 */
async function restLifecycle(base: string, token: string): Promise<Step[]> {
  const steps: Step[] = [];
  const auth = bearer(token);
  const call = async (method: string, path: string, init: { headers?: Record<string, string>; body?: unknown } = {}) => {
    const result = await api(base, method, path, init);
    steps.push({ method, path, result });
    return result;
  };

  await call('GET', '/v1/capabilities', { headers: { ...auth, 'x-request-id': 'req-caps-1' } });
  await call('GET', '/v1/capabilities');
  const createBody = { requestId: 'req-create-b', sessionId: 'agent-b', spec: { cwd: '/srv/work/b', name: 'bee', target: { mode: 'new' } } };
  const created = await call('POST', '/v1/session', { headers: { ...auth, 'idempotency-key': 'create-b-1', 'x-request-id': 'req-create-b' }, body: createBody });
  const createTicket = created.headers.location;
  await call('GET', createTicket, { headers: auth });
  await call('GET', createTicket, { headers: auth });
  await call('GET', '/v1/ticket?method=POST&target=%2Fv1%2Fsession', { headers: { ...auth, 'idempotency-key': 'create-b-1' } });
  const byId = await call('GET', '/v1/session/agent-b', { headers: auth });
  await call('GET', '/v1/session/bee', { headers: { ...auth, 'x-request-id': 'req-get-by-name' } });
  await call('GET', '/v1/session?limit=10', { headers: auth });
  await call('GET', '/v1/session/no-such-session', { headers: auth });

  const updateBody = { requestId: 'req-update-b', expectedGeneration: 1, expectedRevision: 1, spec: { cwd: '/srv/work/b', name: 'bee-2', target: { mode: 'new' } } };
  const updated = await call('PUT', '/v1/session/agent-b', { headers: { ...auth, 'idempotency-key': 'update-b-1', 'if-match': byId.headers.etag }, body: updateBody });
  await call('GET', updated.headers.location, { headers: auth });
  await call('GET', updated.headers.location, { headers: auth });
  const after = await call('GET', '/v1/session/agent-b', { headers: auth });
  const deleted = await call('DELETE', '/v1/session/agent-b?retainArtifacts=false', { headers: { ...auth, 'idempotency-key': 'delete-b-1', 'if-match': after.headers.etag } });
  await call('GET', deleted.headers.location, { headers: auth });
  await call('GET', deleted.headers.location, { headers: auth });
  await call('GET', '/v1/session/agent-b', { headers: auth });
  return steps;
}

describe('proxy record: Pi daemon REST', () => {
  it('answers every call exactly as the daemon does direct, and records each as a valid pi-rest exchange', async () => {
    const direct = await daemon({ deterministic: true });
    const proxied = await daemon({ deterministic: true });
    const rec = await record(proxied.url, { fresh: true });

    const expected = await restLifecycle(direct.url, direct.token);
    const seen = await restLifecycle(rec.url, proxied.token);

    // The lifecycle really went through its states (so the comparison below compares something).
    expect(expected.map((s) => s.result.status)).toEqual([200, 401, 202, 200, 200, 200, 200, 200, 200, 404, 202, 200, 200, 200, 202, 200, 200, 404]);
    expect(expected[4].result.body.data.state).toBe('succeeded');
    expect(expected[6].result.headers.etag).toMatch(/^".+:1"$/);
    expect(expected[8].result.body.data.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual(['agent-a', 'agent-b']);
    expect(expected[13].result.body.data).toMatchObject({ name: 'bee-2', generation: 2, revision: 2 });
    expect(expected[16].result.body.data.result).toEqual({ sessionId: 'agent-b', retained: false, deleted: true });

    // Same status, same bytes, same headers (minus Date / Keep-Alive / Connection), call by call.
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual(expected.map((s) => `${s.method} ${s.path}`));
    for (let i = 0; i < expected.length; i++) {
      const what = `${expected[i].method} ${expected[i].path}`;
      expect(seen[i].result.status, what).toBe(expected[i].result.status);
      expect(seen[i].result.text, what).toBe(expected[i].result.text);
      expect(seen[i].result.headers, what).toEqual(expected[i].result.headers);
    }
    // The daemon behind the proxy got the client's headers, bearer included.
    const create = proxied.received.http.find((r) => r.method === 'POST')!;
    expect(create.headers).toMatchObject({ authorization: `Bearer ${proxied.token}`, 'idempotency-key': 'create-b-1', 'x-request-id': 'req-create-b' });
    expect(proxied.received.http.find((r) => r.method === 'PUT')!.headers['if-match']).toBe(expected[6].result.headers.etag);

    const reader = await rec.finish();
    const exchanges = reader.exchanges();
    expect(exchanges.map((e) => [e.method, e.path, e.query, e.status])).toEqual(
      seen.map((s) => {
        const [path, query] = s.path.split('?');
        return [s.method, path, query ?? null, s.result.status];
      }),
    );
    for (const e of exchanges) {
      expect(e, `exchange ${e.id}`).toMatchObject({ transport: 'http', protocol: 'pi-rest', outcome: 'complete' });
      const messages = reader.messages(e.id);
      // One request body for POST/PUT, one response body for every call.
      expect(messages.map((m) => m.sender), `exchange ${e.id}`).toEqual(e.method === 'POST' || e.method === 'PUT' ? ['client', 'server'] : ['server']);
      expectAllValid(messages, `${e.method} ${e.path}`);
      expect(errorsOf(messages)).toEqual([]);
    }
    // Each stored response body is byte for byte what the client got, and its $def is the route's.
    const responses = exchanges.map((e) => reader.messages(e.id).at(-1)!);
    expect(responses.map((m) => m.raw.toString())).toEqual(seen.map((s) => s.result.text));
    const refs = responses.map((m) => m.verdict.schemaRef?.replace(`${PI_SESSION_API_ID}#/$defs/`, ''));
    expect(refs).toEqual([
      'capabilitiesEnvelope',
      'apiErrorEnvelope',
      'ticketEnvelope',
      'ticketEnvelope',
      'ticketEnvelope',
      'ticketEnvelope',
      'sessionEnvelope',
      'sessionEnvelope',
      'sessionListEnvelope',
      'apiErrorEnvelope',
      'ticketEnvelope',
      'ticketEnvelope',
      'ticketEnvelope',
      'sessionEnvelope',
      'ticketEnvelope',
      'ticketEnvelope',
      'ticketEnvelope',
      'apiErrorEnvelope',
    ]);
    const requestRefs = exchanges.filter((e) => e.method === 'POST' || e.method === 'PUT').map((e) => reader.messages(e.id)[0].verdict.schemaRef);
    expect(requestRefs).toEqual([`${PI_SESSION_API_ID}#/$defs/sessionCreateRequest`, `${PI_SESSION_API_ID}#/$defs/sessionUpdateRequest`]);
    expect(reader.totals()).toMatchObject({ exchanges: 18, messages: 20, invalid: 0 });
  });

  it('judges the bodies with the schemas it loaded: a broken envelope through the proxy is invalid', async () => {
    // The negative control for the test above: the same proxy does flag a body that breaks its $def.
    const d = await daemon({ deterministic: true });
    const rec = await record(d.url);
    const bad = await api(rec.url, 'POST', '/v1/session', { headers: { ...bearer(d.token), 'idempotency-key': 'k-1' }, body: { requestId: 'r-1', spec: { cwd: 42, target: {} } } });
    expect(bad.status).toBe(400);
    const reader = await rec.finish();
    const [request, response] = reader.messages(reader.exchanges()[0].id);
    expect(request.verdict.status).toBe('invalid');
    expect(request.verdict.findings.some((f) => f.pointer.startsWith('/spec'))).toBe(true);
    expect(response.verdict.status).toBe('valid');
  });
});

describe('proxy record: unix-socket Pi daemon target', () => {
  it('forwards REST and WebSocket traffic to unix:<path> and records both', async () => {
    const socketPath = scratch('pi-sock-').file('daemon.sock');
    const d = await daemon({ listen: { path: socketPath }, deterministic: true, rpcTurn: 'text' });
    expect(d.url).toBe(`unix:${socketPath}`);
    const rec = await record(`unix:${socketPath}`);

    const caps = await api(rec.url, 'GET', '/v1/capabilities', { headers: { ...bearer(d.token), 'x-request-id': 'caps-1' } });
    const directCaps = await rawRequest({ socketPath }, 'GET', '/v1/capabilities', { ...bearer(d.token), 'x-request-id': 'caps-1' });
    expect(caps.status).toBe(200);
    expect(caps.text).toBe(directCaps.body.toString());
    expect(caps.body.data.rpcSubprotocols).toEqual(['pi-rpc.v1', 'pi-daemon-rpc.v1']);

    const c = await wsOpen(`${rec.wsUrl}/v1/session/agent-a/rpc?role=controller`, 'pi-daemon-rpc.v1', { headers: bearer(d.token) });
    expect(c.ws.protocol).toBe('pi-daemon-rpc.v1');
    const [ready] = await c.take(1);
    expect(JSON.parse(ready)).toMatchObject({ kind: 'attach_ready', sessionId: 'agent-a', role: 'controller' });
    c.ws.send(JSON.stringify({ kind: 'command', command: { id: 'p-1', type: 'prompt', message: 'Say hello' } }));
    const frames = await c.take(2 + 16);
    expect(JSON.parse(frames[1])).toEqual({ kind: 'response', response: { id: 'p-1', type: 'response', command: 'prompt', success: true } });
    c.ws.close(1000, 'done');
    expect(await c.closed).toEqual({ code: 1000, reason: 'done' });
    expect(d.received.ws[0]).toMatchObject({ route: 'rpc', mode: 'framed', protocol: 'pi-daemon-rpc.v1' });
    expect(d.received.ws[0].toClient.map((m) => JSON.stringify(m))).toEqual(frames);

    const reader = await rec.finish();
    expect(reader.recording().target).toBe(`unix:${socketPath}`);
    const [rest, ws] = reader.exchanges();
    expect(rest).toMatchObject({ transport: 'http', protocol: 'pi-rest', method: 'GET', path: '/v1/capabilities', status: 200, outcome: 'complete' });
    expectAllValid(reader.messages(rest.id), 'capabilities');
    expect(ws).toMatchObject({ transport: 'ws', protocol: 'pi-daemon-rpc', status: 101, subprotocol: 'pi-daemon-rpc.v1', outcome: 'complete', closeCode: 1000, closeReason: 'done' });
    const messages = reader.messages(ws.id);
    expect(messages.filter((m) => m.channel === 'text' && m.sender === 'server').map((m) => m.raw.toString())).toEqual(frames);
    expectAllValid(messages, 'framed over unix');
    expect(errorsOf(messages)).toEqual([]);
  });
});

describe('proxy show on a Pi recording', () => {
  it('prints one row per exchange, ws exchanges with their protocol', async () => {
    const d = await daemon({ deterministic: true, rpcTurn: 'text' });
    const rec = await record(d.url);
    await api(rec.url, 'GET', '/v1/capabilities', { headers: bearer(d.token) });
    const framed = await wsOpen(`${rec.wsUrl}/v1/session/agent-a/rpc`, 'pi-daemon-rpc.v1', { headers: bearer(d.token) });
    await framed.take(1);
    framed.ws.close(1000);
    await framed.closed;
    const raw = await wsOpen(`${rec.wsUrl}/v1/session/agent-a/rpc`, 'pi-rpc.v1', { headers: bearer(d.token) });
    raw.ws.send(JSON.stringify({ id: 's-1', type: 'get_state' }));
    await raw.take(1);
    raw.ws.close(1000);
    await raw.closed;
    const reader: RecordingReader = await rec.finish();
    expect(wsExchanges(reader)).toHaveLength(2);

    // dist/ must be current: the spawned CLI runs the compiled code (the suite is run after `tsc`).
    const shown = spawnSync(process.execPath, [join(REPO, 'bin/proxy.js'), 'show', rec.out], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(shown.stderr).toBe('');
    expect(shown.status).toBe(0);
    const rows = shown.stdout.split('\n').filter((l) => /^#\d+\s/.test(l));
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(/^#1\s+http\/pi-rest\s+GET \/v1\/capabilities\s+200\s+1\s+valid(, \d+ unchecked)?\s+complete\s+route GET \/v1\/capabilities$/);
    expect(rows[1]).toMatch(/^#2\s+ws\/pi-daemon-rpc\s+GET \/v1\/session\/agent-a\/rpc\s+101\s+\d+\s+valid(, \d+ unchecked)?\s+complete\s+WebSocket subprotocol pi-daemon-rpc\.v1$/);
    expect(rows[2]).toMatch(/^#3\s+ws\/pi-rpc\s+GET \/v1\/session\/agent-a\/rpc\s+101\s+\d+\s+valid(, \d+ unchecked)?\s+complete\s+WebSocket subprotocol pi-rpc\.v1$/);
    expect(shown.stdout).toContain('3 exchanges');

    const json = spawnSync(process.execPath, [join(REPO, 'bin/proxy.js'), 'show', rec.out, '--json'], { encoding: 'utf8' });
    expect(json.status).toBe(0);
    const parsed = JSON.parse(json.stdout) as { exchanges: Array<{ transport: string; protocol: string; status: number }> };
    expect(parsed.exchanges.map((e) => `${e.transport}/${e.protocol} ${e.status}`)).toEqual(['http/pi-rest 200', 'ws/pi-daemon-rpc 101', 'ws/pi-rpc 101']);
  });
});
