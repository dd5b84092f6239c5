import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { piRestProtocol, redactSessionEnv, SESSION_ENV_POINTER } from '../../../src/protocols/pi-rest/index.js';
import { SecretTracker } from '../../../src/judge/secret-tracker.js';
import { testRegistry } from '../../support/shared.js';
import { clone, judgeExchange, newJudge, requestMessage, responseMessage } from './pi-rest-helpers.js';
import { restExchanges, updateRequest } from './rest-exchanges.js';

const SECRET = 'sk-live-abc123secret';

type CreateBody = { requestId: string; sessionId: string; spec: { env?: Record<string, string>; name?: string } };

function createBodyWithSecret(): CreateBody {
  const body = clone(restExchanges().find((r) => r.label === 'session.create')!.request.body as CreateBody);
  body.spec.env = { API_TOKEN: SECRET, FIXTURE_ENV: 'not-a-secret' };
  return body;
}

describe('write-only spec.env', () => {
  it('finds an env value the server sends back, names the key, and never shows the value', () => {
    const { judge, secrets } = newJudge(testRegistry());
    const records = restExchanges();
    const create = records.find((r) => r.label === 'session.create')!;
    const verdicts = [];

    const exchange = judgeExchange(judge, {
      method: 'POST',
      path: '/v1/session',
      requestHeaders: create.request.headers,
      requestBody: createBodyWithSecret(),
      status: 202,
      responseBody: create.response.body,
    });
    verdicts.push(exchange.request!, exchange.response!);
    expect(exchange.request!.status).toBe('valid');
    expect(exchange.response!.status).toBe('valid');
    expect(secrets.size).toBe(2);

    // The daemon leaks the token inside an otherwise well-formed error envelope.
    const leak = {
      apiVersion: '1.0',
      requestId: 'http-1',
      hostInstanceId: '65ba84e8-535c-4dd2-9c98-e020c047e399',
      ok: false,
      error: { code: 'provider_failed', message: `provider rejected key ${SECRET}`, retryable: false },
    };
    const leaked = judge.judge(responseMessage('GET', '/v1/session/agent-a', {}, 502, leak));
    verdicts.push(leaked);
    expect(leaked.status).toBe('invalid');
    expect(leaked.findings).toEqual([
      { rule: 'secret-leak', severity: 'error', pointer: '/error/message', message: "the value of write-only env key 'API_TOKEN' appears in a server message" },
    ]);

    // A leaked value in a field a behavioural rule quotes: the finding text is scrubbed too.
    const session = clone(records.find((r) => r.label === 'session.get')!.response.body as { requestId: string });
    session.requestId = SECRET;
    const echoed = judge.judge(responseMessage('GET', '/v1/session/agent-a', { 'X-Request-Id': 'req-get-1' }, 200, session));
    verdicts.push(echoed);
    expect(echoed.findings.map((f) => f.rule).sort()).toEqual(['request-id-not-echoed', 'secret-leak']);

    const all = JSON.stringify(verdicts);
    expect(all).not.toContain(SECRET);
    expect(all).toContain('API_TOKEN');
  });

  it('registers env from update bodies too (PUT /v1/session/{ref})', () => {
    const { judge, secrets } = newJudge(testRegistry());
    const update = updateRequest();
    update.spec.env = { ROTATED_TOKEN: SECRET };
    const verdict = judge.judge(requestMessage('PUT', '/v1/session/agent-a', { 'Idempotency-Key': 'u-1' }, update));
    expect(verdict.status).toBe('valid');
    expect(secrets.size).toBe(1);
    const leaked = judge.judge(responseMessage('GET', '/v1/session/agent-a', {}, 404, {
      apiVersion: '1.0',
      requestId: 'http-2',
      hostInstanceId: 'host-1',
      ok: false,
      error: { code: 'session_not_found', message: SECRET, retryable: false },
    }));
    expect(leaked.findings.map((f) => [f.rule, f.pointer])).toEqual([['secret-leak', '/error/message']]);
  });
});

describe('the checker on its own', () => {
  it('keeps registered values out of its findings even without MessageJudge', () => {
    const secrets = new SecretTracker();
    const checker = piRestProtocol.createChecker({ registry: testRegistry(), secrets });
    checker.judge(requestMessage('POST', '/v1/session', { 'Idempotency-Key': 'k', 'X-Request-Id': 'req-create-1' }, createBodyWithSecret()));
    const session = clone(restExchanges().find((r) => r.label === 'session.get')!.response.body as { requestId: string });
    session.requestId = SECRET;
    const verdict = checker.judge(responseMessage('GET', '/v1/session/agent-a', { 'X-Request-Id': 'req-get-1' }, 200, session));
    expect(verdict.findings.map((f) => f.rule)).toEqual(['request-id-not-echoed']);
    expect(JSON.stringify(verdict)).not.toContain(SECRET);
    expect(verdict.findings[0].message).toContain('<redacted>');
  });
});

describe('redactSessionEnv', () => {
  it('keeps the keys, replaces each value by its digest, and leaves the input alone', () => {
    const body = createBodyWithSecret();
    const before = JSON.stringify(body);
    const tracker = new SecretTracker();
    const redacted = redactSessionEnv(body, tracker);
    expect(JSON.stringify(body)).toBe(before);
    expect(redacted.spec.env).toEqual({ API_TOKEN: tracker.digest(SECRET), FIXTURE_ENV: tracker.digest('not-a-secret') });
    expect(Object.keys(redacted.spec.env!)).toEqual(['API_TOKEN', 'FIXTURE_ENV']);
    expect(JSON.stringify(redacted)).not.toContain(SECRET);
    expect(JSON.stringify(redacted)).not.toContain('not-a-secret');
    // Everything else is untouched.
    expect({ ...redacted, spec: { ...redacted.spec, env: body.spec.env } }).toEqual(body);
    expect(SESSION_ENV_POINTER).toBe('/spec/env');
  });

  it('still validates after redaction (digests are strings) and returns bodies without env as they are', () => {
    const { judge } = newJudge(testRegistry());
    const tracker = new SecretTracker();
    const redacted = redactSessionEnv(createBodyWithSecret(), tracker);
    expect(judge.judge(requestMessage('POST', '/v1/session', { 'Idempotency-Key': 'k', 'X-Request-Id': 'req-create-1' }, redacted)).status).toBe('valid');
    const noEnv = restExchanges().find((r) => r.label === 'blob.reserve')!.request.body as object;
    expect(redactSessionEnv(noEnv, tracker)).toBe(noEnv);
    expect(redactSessionEnv(null, tracker)).toBe(null);
  });
});

describe('SecretTracker.digest', () => {
  const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

  it('is keyed per tracker: no lookup table of plain hashes reverses a short value', () => {
    const one = new SecretTracker();
    const other = new SecretTracker();
    // "abc" and "true" have well-known sha256 digests (ba7816bf…, b5bea41b…).
    for (const value of ['abc', 'true', SECRET]) {
      const digest = one.digest(value);
      expect(digest).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
      expect(digest).not.toContain(sha256(value));
      // Equal values stay visible as equal within one recording session, and only there.
      expect(one.digest(value)).toBe(digest);
      expect(other.digest(value)).not.toBe(digest);
    }
    expect(one.digest('abc')).not.toBe(one.digest('abd'));
  });
});
