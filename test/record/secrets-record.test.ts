/**
 * Secrets through `proxy record`: credentials in headers and Pi session `spec.env` values are
 * forwarded to the daemon untouched, yet never reach the recording file; checked on the file's
 * bytes (the .db plus any -wal beside it), not through the reader.
 */
import { describe, expect, it } from 'vitest';
import type { ExchangeRow } from '../../src/store/recording-reader.js';
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startRecorder } from '../../src/record/start-recorder.js';
import { startHttpMcpStandIn, STAND_IN_BEARER } from '../support/http-mcp-server.js';
import { bareRegistry } from '../support/shared.js';
import { scratch } from '../support/temp-dir.js';
import { runCli } from '../cli/run-cli.js';
import { readRecording } from '../stdio/stdio-helpers.js';
import { api, bearer, daemon, expectAbsent, findingsOf, record, recordingBytes, useCleanups, wsOpen } from './pi-helpers.js';

useCleanups();

/** Distinctive values, long enough that an accidental match is impossible. */
const TOKEN = 'svc-bearer-7f3a9c1e5b2d4a6f8e0c1d2b';
const COOKIE_VALUE = 'cookie-secret-5e1f0a9b8c7d6e5f';
const API_KEY_HEADER = 'apikey-secret-0a1b2c3d4e5f6a7b';
const INTERNAL_TOKEN = 'internal-secret-9d8c7b6a5f4e3d2c';
const ENV_API_KEY = 'env-api-key-value-3c4d5e6f7a8b9c0d';
const ENV_DB_PASSWORD = 'env-db-password-value-1a2b3c4d5e6f';
const ENV_ROTATED = 'env-rotated-api-key-value-8e9f0a1b';

const HMAC_DIGEST = /^hmac-sha256:[0-9a-f]{64}$/;
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** Each env value replaced by a keyed digest: the keys stay, the plain sha256 of the value is nowhere. */
function expectDigested(stored: Record<string, string>, env: Record<string, string>): void {
  expect(Object.keys(stored)).toEqual(Object.keys(env));
  for (const [key, value] of Object.entries(env)) {
    expect(stored[key], key).toMatch(HMAC_DIGEST);
    expect(stored[key], key).not.toContain(sha256(value));
  }
}

function header(e: ExchangeRow, name: string, which: 'requestHeaders' | 'responseHeaders' = 'requestHeaders'): unknown {
  const headers = e[which] ?? {};
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

describe('proxy record: secrets never reach the file', () => {
  it('forwards credentials and spec.env to the daemon, stores them redacted and digested', async () => {
    const d = await daemon({ token: TOKEN, deterministic: true });
    const rec = await record(d.url, { redactHeaders: ['x-internal-token'] });
    const credentials = { ...bearer(TOKEN), cookie: `session=${COOKIE_VALUE}`, 'x-api-key': API_KEY_HEADER, 'x-internal-token': INTERNAL_TOKEN };

    const caps = await api(rec.url, 'GET', '/v1/capabilities', { headers: credentials });
    expect(caps.status).toBe(200);
    const createBody = {
      requestId: 'req-create-secret',
      sessionId: 'agent-s',
      spec: { cwd: '/srv/work/s', name: 'secretive', target: { mode: 'new' }, env: { API_KEY: ENV_API_KEY, DB_PASSWORD: ENV_DB_PASSWORD } },
    };
    const created = await api(rec.url, 'POST', '/v1/session', { headers: { ...credentials, 'idempotency-key': 'create-s-1' }, body: createBody });
    expect(created.status).toBe(202);
    await api(rec.url, 'GET', created.headers.location, { headers: credentials });
    const done = await api(rec.url, 'GET', created.headers.location, { headers: credentials });
    expect(done.body.data.result.environment).toMatchObject({ keys: ['API_KEY', 'DB_PASSWORD'], provisioned: true });
    const got = await api(rec.url, 'GET', '/v1/session/agent-s', { headers: credentials });
    const updateBody = { requestId: 'req-update-secret', expectedGeneration: 1, expectedRevision: 1, spec: { cwd: '/srv/work/s', target: { mode: 'new' }, env: { API_KEY: ENV_ROTATED } } };
    const updated = await api(rec.url, 'PUT', '/v1/session/agent-s', { headers: { ...credentials, 'idempotency-key': 'update-s-1', 'if-match': got.headers.etag }, body: updateBody });
    expect(updated.status).toBe(202);
    await api(rec.url, 'GET', updated.headers.location, { headers: credentials });
    await api(rec.url, 'GET', updated.headers.location, { headers: credentials });
    // A WebSocket upgrade carries the same credentials.
    const ws = await wsOpen(`${rec.wsUrl}/v1/session/agent-s/rpc`, 'pi-daemon-rpc.v1', { headers: credentials });
    await ws.take(1);
    ws.ws.close(1000);
    await ws.closed;

    // The daemon got every real value: the proxy redacts storage, not traffic.
    const received = d.received.http;
    for (const r of received) {
      expect(r.headers, `${r.method} ${r.path}`).toMatchObject({ authorization: `Bearer ${TOKEN}`, cookie: `session=${COOKIE_VALUE}`, 'x-api-key': API_KEY_HEADER, 'x-internal-token': INTERNAL_TOKEN });
    }
    expect(received.find((r) => r.method === 'POST')!.body).toEqual(createBody);
    expect(received.find((r) => r.method === 'PUT')!.body).toEqual(updateBody);
    expect(received.filter((r) => r.upgrade).map((r) => r.status)).toEqual([101]);

    const reader = await rec.finish();
    const exchanges = reader.exchanges();
    expect(exchanges).toHaveLength(9);
    for (const e of exchanges) {
      expect(header(e, 'authorization'), `exchange ${e.id}`).toBe('Bearer <redacted>');
      expect(header(e, 'cookie'), `exchange ${e.id}`).toBe('<redacted>');
      expect(header(e, 'x-api-key'), `exchange ${e.id}`).toBe('<redacted>');
      expect(header(e, 'x-internal-token'), `exchange ${e.id}`).toBe('<redacted>');
    }
    expect(exchanges.at(-1)).toMatchObject({ transport: 'ws', protocol: 'pi-daemon-rpc', outcome: 'complete' });

    // The request bodies keep the env keys, each value replaced by its keyed digest.
    const bodyOf = (method: string) => reader.messages(exchanges.find((e) => e.method === method)!.id).find((m) => m.sender === 'client')!;
    type EnvBody = { spec: { env: Record<string, string> } };
    const storedCreate = bodyOf('POST');
    const createDigests = (storedCreate.json as EnvBody).spec.env;
    expectDigested(createDigests, createBody.spec.env);
    expect(createDigests.API_KEY).not.toBe(createDigests.DB_PASSWORD);
    expect(storedCreate.json).toEqual({ ...createBody, spec: { ...createBody.spec, env: createDigests } });
    expect(JSON.parse(storedCreate.raw.toString())).toEqual(storedCreate.json);
    expect(storedCreate.verdict.status).toBe('valid');
    const storedUpdate = bodyOf('PUT');
    const updateDigests = (storedUpdate.json as EnvBody).spec.env;
    expectDigested(updateDigests, updateBody.spec.env);
    // A rotated value gets another digest; within one recording an unchanged one would keep its own.
    expect(updateDigests.API_KEY).not.toBe(createDigests.API_KEY);
    expect(storedUpdate.json).toEqual({ ...updateBody, spec: { ...updateBody.spec, env: updateDigests } });
    expect(storedUpdate.verdict.status).toBe('valid');
    // The daemon echoed no value, so there is nothing to report.
    expect(exchanges.flatMap((e) => findingsOf(reader.messages(e.id))).filter((f) => f.rule === 'secret-leak')).toEqual([]);

    // And on disk: none of the values, in any table, in any file of the recording.
    const bytes = recordingBytes(rec.out);
    expect(bytes.indexOf(Buffer.from('<redacted>'))).toBeGreaterThan(-1);
    expectAbsent(bytes, TOKEN, 'the bearer token');
    expectAbsent(bytes, COOKIE_VALUE, 'the Cookie value');
    expectAbsent(bytes, API_KEY_HEADER, 'the X-Api-Key value');
    expectAbsent(bytes, INTERNAL_TOKEN, 'the --redact-header value');
    expectAbsent(bytes, ENV_API_KEY, 'spec.env.API_KEY of the create');
    expectAbsent(bytes, ENV_DB_PASSWORD, 'spec.env.DB_PASSWORD of the create');
    expectAbsent(bytes, ENV_ROTATED, 'spec.env.API_KEY of the update');
    for (const value of [ENV_API_KEY, ENV_DB_PASSWORD, ENV_ROTATED]) expectAbsent(bytes, sha256(value), 'the plain sha256 of an env value');
    expect(JSON.stringify(rec.events)).not.toContain(ENV_API_KEY);
  });

  it('reports a live leak of an env value as secret-leak naming the key, without storing the value', async () => {
    const LEAKED = 'leaky-env-value-4b5c6d7e8f9a0b1c';
    const KEPT = 'kept-env-value-2d3e4f5a6b7c8d9e';
    const d = await daemon({ leakEnv: true, deterministic: true });
    const rec = await record(d.url);
    const auth = bearer(d.token);
    const createBody = { requestId: 'req-leak', sessionId: 'leaky', spec: { cwd: '/srv/work/leaky', target: { mode: 'new' }, env: { LEAKY_TOKEN: LEAKED, OTHER_SECRET: KEPT } } };
    const created = await api(rec.url, 'POST', '/v1/session', { headers: { ...auth, 'idempotency-key': 'leak-1' }, body: createBody });
    const running = await api(rec.url, 'GET', created.headers.location, { headers: auth });
    const succeeded = await api(rec.url, 'GET', created.headers.location, { headers: auth });
    const got = await api(rec.url, 'GET', '/v1/session/leaky', { headers: auth });
    // The proxy is transparent: the client sees the daemon's leak as it is.
    expect(running.text).not.toContain(LEAKED);
    expect(succeeded.body.data.result.spec.settings.debugEnv).toEqual({ LEAKY_TOKEN: LEAKED });
    expect(got.body.data.spec.settings.debugEnv).toEqual({ LEAKY_TOKEN: LEAKED });
    // The leak crosses protocols: the framed RPC attach_ready snapshot carries the session resource too.
    const ws = await wsOpen(`${rec.wsUrl}/v1/session/leaky/rpc`, 'pi-daemon-rpc.v1', { headers: auth });
    const [ready] = await ws.take(1);
    expect(ready).toContain(LEAKED);
    ws.ws.close(1000);
    await ws.closed;

    const reader = await rec.finish();
    const exchanges = reader.exchanges();
    const responseOf = (i: number) => reader.messages(exchanges[i].id).find((m) => m.sender === 'server')!;
    const leakOf = (i: number) => responseOf(i).verdict.findings.filter((f) => f.rule === 'secret-leak');
    expect(exchanges.map((e) => `${e.method} ${e.path}`)).toEqual([
      'POST /v1/session',
      `GET ${created.headers.location}`,
      `GET ${created.headers.location}`,
      'GET /v1/session/leaky',
      'GET /v1/session/leaky/rpc',
    ]);
    expect(leakOf(0)).toEqual([]);
    expect(leakOf(1)).toEqual([]);
    expect(leakOf(2)).toEqual([
      { rule: 'secret-leak', severity: 'error', pointer: '/data/result/spec/settings/debugEnv/LEAKY_TOKEN', message: expect.stringContaining("'LEAKY_TOKEN'") },
    ]);
    expect(leakOf(3)).toEqual([{ rule: 'secret-leak', severity: 'error', pointer: '/data/spec/settings/debugEnv/LEAKY_TOKEN', message: expect.stringContaining("'LEAKY_TOKEN'") }]);
    const wsMessages = reader.messages(exchanges[4].id);
    const attach = wsMessages.find((m) => m.sender === 'server' && m.channel === 'text')!;
    expect(attach.verdict.findings.filter((f) => f.rule === 'secret-leak')).toEqual([
      { rule: 'secret-leak', severity: 'error', pointer: '/snapshot/session/spec/settings/debugEnv/LEAKY_TOKEN', message: expect.stringContaining("'LEAKY_TOKEN'") },
    ]);
    for (const m of [responseOf(2), responseOf(3), attach]) {
      expect(m.verdict.status).toBe('invalid');
      // Stored scrubbed: the key stays, the value is gone from both the raw bytes and the parsed JSON.
      expect(m.raw.toString()).toContain('"LEAKY_TOKEN":"<redacted>"');
      expect(JSON.stringify(m.json)).toContain('"LEAKY_TOKEN":"<redacted>"');
    }
    // Only the key that leaked is named; no finding anywhere quotes a value.
    const all = exchanges.flatMap((e) => findingsOf(reader.messages(e.id)));
    expect(all.filter((f) => f.rule === 'secret-leak')).toHaveLength(3);
    expect(JSON.stringify(all)).not.toContain('OTHER_SECRET');
    expect(JSON.stringify(all)).not.toContain(LEAKED);
    expect(JSON.stringify(rec.events)).not.toContain(LEAKED);
    const invalid = rec.events.filter((e) => e.type === 'invalid-message');
    expect(invalid).toHaveLength(3);

    const bytes = recordingBytes(rec.out);
    expectAbsent(bytes, LEAKED, 'the leaked env value');
    expectAbsent(bytes, KEPT, 'the other env value');
  });

  it('env values that read as JSON literals ("true", "1048576") neither break the recording nor raise false leaks', async () => {
    const SECRET = 'a-token-value-6f7a8b9c0d1e2f3a';
    const d = await daemon({ leakEnv: true, deterministic: true, ticketPollsToSucceed: 0 });
    const rec = await record(d.url);
    const auth = bearer(d.token);
    // A_TOKEN sorts first, so it is the one the daemon leaks; the others are everyday config values.
    const env = { A_TOKEN: SECRET, DEBUG: 'true', MAX_BODY: '1048576', LOG_LEVEL: 'null' };
    const created = await api(rec.url, 'POST', '/v1/session', { headers: { ...auth, 'idempotency-key': 'lit-1' }, body: { requestId: 'req-lit', sessionId: 'lit', spec: { cwd: '/srv/work/lit', target: { mode: 'new' }, env } } });
    expect(created.body.data.state).toBe('succeeded');
    const caps = await api(rec.url, 'GET', '/v1/capabilities', { headers: auth });
    // Both literals occur in the daemon's answers as JSON syntax, not as env values.
    expect(caps.text).toContain('"ok":true');
    expect(caps.text).toContain(':1048576');

    const reader = await rec.finish();
    const exchanges = reader.exchanges();
    expect(exchanges.map((e) => e.outcome)).toEqual(['complete', 'complete']);
    const [request, ticket] = reader.messages(exchanges[0].id);
    expectDigested((request.json as { spec: { env: Record<string, string> } }).spec.env, env);
    // The ticket's result leaks A_TOKEN (and only that is reported); the stored bodies are intact JSON.
    expect(ticket.verdict.findings).toEqual([{ rule: 'secret-leak', severity: 'error', pointer: '/data/result/spec/settings/debugEnv/A_TOKEN', message: expect.stringContaining("'A_TOKEN'") }]);
    expect(JSON.parse(ticket.raw.toString())).toEqual(ticket.json);
    const [capsRow] = reader.messages(exchanges[1].id);
    expect(capsRow.verdict).toMatchObject({ status: 'valid', findings: [] });
    expect(capsRow.raw.toString()).toBe(caps.text);
    expectAbsent(recordingBytes(rec.out), SECRET, 'the leaked env value');
  });
});

describe('proxy record: an MCP client\'s bearer token over Streamable HTTP', () => {
  it('reaches the server, and neither the recording nor its export holds it', async () => {
    const server = await startHttpMcpStandIn();
    const out = scratch().file('mcp-auth.db');
    const proxy = await startRecorder({ target: server.origin, listen: 0, out, registry: bareRegistry() });
    try {
      const transport = new StreamableHTTPClientTransport(new URL(`${proxy.url}/auth/mcp`), { requestInit: { headers: { Authorization: `Bearer ${STAND_IN_BEARER}` } } });
      const client = new Client({ name: 'secretive', version: '1.0.0' });
      await client.connect(transport);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
      expect(await client.callTool({ name: 'echo', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'echo' }] });
      await client.close();
    } finally {
      await proxy.close();
      await server.close();
    }
    expectAbsent(recordingBytes(out), STAND_IN_BEARER, 'the bearer token');
    for (const format of ['ndjson', 'har']) {
      const exported = await runCli(['export', out, '--format', format]);
      expect(exported.code).toBe(0);
      expect(exported.stdout).toContain('Bearer <redacted>');
      expect(exported.stdout.includes(STAND_IN_BEARER), `the ${format} export holds the token`).toBe(false);
    }
    const { exchanges } = readRecording(out);
    expect(exchanges.map((e) => e.protocol)).toEqual(exchanges.map(() => 'mcp'));
    expect(exchanges.every((e) => e.status !== 401)).toBe(true);
  });
});
