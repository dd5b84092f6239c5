/**
 * judge/message-pipeline.ts: the one way from a message's bytes to its verdict, label and stored form,
 * for record and validate. Real schemas and protocol modules; no stand-ins for the checkers.
 */
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/core/json-depth.js';
import type { HttpContext } from '../../src/core/message.js';
import { MessagePipeline, NO_PROTOCOL_REASON, type MessageFacts } from '../../src/judge/message-pipeline.js';
import { protocolById } from '../../src/protocols/modules.js';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { piScenario } from '../support/pi-daemon/scenario.js';

const registry = SchemaRegistry.load({ useEnv: false });
const SECRET = 'sk-pipeline-3b8e1d7c0a';
const pipeline = (limits: { maxBodyBytes?: number; parseBudget?: number } = {}) =>
  new MessagePipeline({ registry, maxBodyBytes: limits.maxBodyBytes ?? 1024 * 1024, parseBudget: limits.parseBudget ?? 1024 * 1024 });
const body: MessageFacts = { carrier: 'body' };
const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const envelope = (requestId: string, data: unknown) => ({ apiVersion: '1.0', requestId, hostInstanceId: '00000000-0000-4000-8000-0000000000d1', ok: true, data });
const getSession: HttpContext = { method: 'GET', path: '/v1/session/agent-a', status: 200, requestHeaders: {} };

describe('MessagePipeline: read', () => {
  it('parses JSON from the bytes, or from the payload when the framer gives one, and keeps the text', () => {
    const p = pipeline();
    expect(p.read('server', Buffer.from('{"a":1}'), body, undefined)).toMatchObject({ value: { a: 1 }, text: '{"a":1}', tooDeep: false, size: 7, oversized: false, parseCost: 0 });
    const sse = p.read('server', Buffer.from('data: {"a":2}\n\n'), { carrier: 'event', payload: '{"a":2}' }, undefined);
    expect(sse).toMatchObject({ value: { a: 2 }, text: '{"a":2}', size: 15 });
    // A decoded value is taken as it is: nothing is parsed.
    const decoded = { b: 3 };
    expect(p.read('server', Buffer.from([0x08, 0x01]), { carrier: 'frame', value: decoded }, undefined).value).toBe(decoded);
  });

  it('says why a message was not parsed: not UTF-8, not JSON, over --max-body, too costly', () => {
    const p = pipeline({ maxBodyBytes: 64, parseBudget: 2048 });
    expect(p.read('server', Buffer.from([0x7b, 0xff, 0x7d]), body, undefined).parseError).toBe('the message is not valid UTF-8');
    expect(p.read('server', Buffer.from('{"a":'), body, undefined).parseError).toMatch(/^the message is not valid JSON: /);
    const big = p.read('server', Buffer.from(`{"pad":"${'x'.repeat(100)}"}`), body, undefined);
    expect(big).toMatchObject({ value: undefined, parseError: undefined, oversized: true, size: 110 });
    // Small on the wire, yet each empty object costs the heap far more than its two bytes.
    const costly = pipeline({ parseBudget: 2048 }).read('server', Buffer.from(`[${new Array(200).fill('{}').join(',')}]`), body, undefined);
    expect(costly).toMatchObject({ value: undefined, parseError: undefined, oversized: false });
    expect(costly.parseCost).toBeGreaterThan(2048);
  });

  it('finds a message too deep to walk from its text, and from the value when there is no text', () => {
    const p = pipeline();
    expect(p.read('server', Buffer.from(deep(MAX_JSON_DEPTH + 1)), body, undefined).tooDeep).toBe(true);
    expect(p.read('server', Buffer.from(deep(MAX_JSON_DEPTH)), body, undefined).tooDeep).toBe(false);
    const value = JSON.parse(deep(MAX_JSON_DEPTH + 1));
    expect(p.parsed('server', 'line', value, undefined, undefined).tooDeep).toBe(true);
    expect(p.parsed('server', 'line', value, deep(MAX_JSON_DEPTH + 1), undefined).tooDeep).toBe(true);
    expect(p.requestBodyOf({ value: [[1]], tooDeep: false })).toEqual([[1]]);
  });
});

describe('MessagePipeline: verdict', () => {
  it('gives what was not judged its reason, and what no protocol claims NO_PROTOCOL_REASON', () => {
    const p = pipeline({ maxBodyBytes: 16, parseBudget: 1024 });
    const read = (text: string, facts: MessageFacts = body) => p.read('server', Buffer.from(text), facts, undefined);
    const oversized = p.verdict(read('{"pad":"xxxxxxxxxxxxxxxx"}'), body, undefined);
    expect(oversized).toMatchObject({ status: 'unchecked', findings: [{ rule: 'oversized-message', severity: 'warning' }] });
    // A line cut off by a disconnect is still invalid when it is also too big.
    const cut = p.verdict(read('{"pad":"xxxxxxxxxxxxxxxx', { carrier: 'line', parseError: 'cut off' }), { parseError: 'cut off' }, undefined);
    expect(cut.status).toBe('invalid');
    expect(cut.findings.map((f) => f.rule)).toEqual(['invalid-json', 'oversized-message']);
    expect(p.verdict(read('{"code":1000}', { carrier: 'frame', judge: false, channel: 'close' }), { judge: false, channel: 'close' }, undefined).reason).toBe('close frame, not a protocol message');
    expect(p.verdict(read('<html>', { carrier: 'body', json: false }), { json: false }, undefined).reason).toBe('not a JSON message');
    // A body is parsed because its content type says JSON: broken JSON there is invalid, claimed or not.
    expect(p.verdict(read('{"a":'), body, undefined)).toMatchObject({ status: 'invalid', findings: [{ rule: 'invalid-json' }] });
    // An unclaimed stream's event that is not JSON breaks no rule anyone made for it (OpenAI's `data: [DONE]`).
    const done = p.read('server', Buffer.from('[DONE]'), { carrier: 'event' }, undefined);
    expect(p.verdict(done, {}, undefined)).toMatchObject({ status: 'unchecked', findings: [], reason: expect.stringContaining(`${NO_PROTOCOL_REASON}; not JSON`) as string });
    expect(p.verdict(read('{"a":1}'), body, undefined)).toEqual({ status: 'unchecked', findings: [], reason: NO_PROTOCOL_REASON });
    const tooDeep = pipeline().read('server', Buffer.from(deep(MAX_JSON_DEPTH + 1)), body, undefined);
    expect(pipeline().verdict(tooDeep, body, undefined).findings.map((f) => f.rule)).toEqual(['json-too-deep']);
  });

  it("judges by the protocol's schemas and behaviour through the stream's judge", () => {
    const p = pipeline();
    const agui = protocolById('agui');
    const judge = p.judgeFor(agui, undefined, { transport: 'sse', path: '/agent' });
    const early = p.read('server', Buffer.from('{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}'), { carrier: 'event' }, undefined);
    expect(p.verdict(early, {}, judge).findings.map((f) => f.rule)).toContain('first-event-must-be-run-started');
  });
});

describe('MessagePipeline: checker scope', () => {
  it("gives every stream of a recording-scoped protocol (Pi REST) the one checker, so rules span the streams", () => {
    const p = pipeline();
    const rest = protocolById('pi-rest');
    expect(rest.checkerScope).toBe('recording');
    const first = p.judgeFor(rest, undefined, { transport: 'http' });
    const second = p.judgeFor(rest, undefined, { transport: 'http' });
    expect(second).toBe(first);
    const session = piScenario().session as Record<string, unknown>;
    const answer = (generation: number) =>
      p.read('server', Buffer.from(JSON.stringify(envelope(`req-${generation}`, { ...session, generation, revision: generation }))), body, getSession);
    expect(p.verdict(answer(3), {}, first).status).toBe('valid');
    expect(p.verdict(answer(2), {}, second).findings.map((f) => f.rule)).toEqual(['session-generation-decreased', 'session-revision-decreased']);
    // Its stream ending ends nothing: the checker goes on with the recording.
    expect(p.endOfStream(rest, first, 'complete')).toEqual([]);
  });

  it('gives every stream of a stream-scoped protocol its own checker, whose end is reported', () => {
    const p = pipeline();
    const agui = protocolById('agui');
    const one = p.judgeFor(agui, undefined);
    expect(p.judgeFor(agui, undefined)).not.toBe(one);
    p.verdict(p.read('server', Buffer.from('{"type":"RUN_STARTED","threadId":"t","runId":"r"}'), { carrier: 'event' }, undefined), {}, one);
    expect(p.endOfStream(agui, one, 'complete').map((f) => f.rule)).toContain('stream-truncated');
  });
});

describe('MessagePipeline: stored form and label', () => {
  it('stores write-only env values as digests, finds them leaked later, and keeps them out of the stored bytes and labels', () => {
    const p = pipeline();
    const rest = protocolById('pi-rest');
    const judge = p.judgeFor(rest, undefined, { transport: 'http' });
    const create = { ...piScenario().createRequest, spec: { ...(piScenario().createRequest.spec as object), env: { API_TOKEN: SECRET } } };
    const post: HttpContext = { method: 'POST', path: '/v1/session', requestHeaders: { 'content-type': 'application/json' } };
    const request = p.read('client', Buffer.from(JSON.stringify(create)), body, post);
    p.verdict(request, body, judge);
    const storedRequest = p.storable(request, Buffer.from(request.text!), rest, undefined, true);
    expect(storedRequest.raw.includes(SECRET)).toBe(false);
    expect(JSON.stringify(storedRequest.value)).toMatch(/"API_TOKEN":"hmac-sha256:[0-9a-f]{64}"/);

    const leak = p.read('server', Buffer.from(JSON.stringify({ type: `echo ${SECRET}` })), { carrier: 'frame' }, undefined);
    const leaked = p.verdict(leak, {}, p.judgeFor(protocolById('agui'), undefined));
    expect(leaked.findings).toContainEqual(expect.objectContaining({ rule: 'secret-leak', severity: 'error' }));
    expect(JSON.stringify(leaked)).not.toContain(SECRET);
    const stored = p.storable(leak, Buffer.from(leak.text!), undefined, undefined, true);
    expect(stored.raw.toString()).toBe('{"type":"echo <redacted>"}');
    expect(stored.value).toEqual({ type: 'echo <redacted>' });
    expect(p.label(leak.value, { carrier: 'frame' })).toBe('echo <redacted>');
  });

  it('redacts --redact-field fields and form bodies, and leaves a message with nothing secret as it is', () => {
    const p = new MessagePipeline({ registry, maxBodyBytes: 1024, parseBudget: 1024, redact: { fields: ['password'] } });
    const login = p.read('client', Buffer.from('{"user":"a","password":"hunter22"}'), body, undefined);
    expect(p.storable(login, Buffer.from(login.text!), undefined, undefined, true).raw.toString()).toBe('{"user":"a","password":"<redacted>"}');
    const form: HttpContext = { method: 'POST', path: '/token', requestHeaders: { 'Content-Type': 'application/x-www-form-urlencoded' } };
    const token = p.read('client', Buffer.from('grant_type=password&password=hunter22'), { carrier: 'body', json: false }, form);
    expect(p.storable(token, Buffer.from('grant_type=password&password=hunter22'), undefined, undefined, false).raw.toString()).toBe('grant_type=password&password=%3Credacted%3E');
    const plain = Buffer.from('{"ok":true}');
    const message = p.read('server', plain, body, undefined);
    const stored = p.storable(message, plain, undefined, undefined, true);
    expect(stored.raw).toBe(plain);
    expect(stored.value).toBe(message.value);
  });

  it('labels a message as core/message-label does: a REST body by its route', () => {
    const p = pipeline();
    expect(p.label({ ok: true }, { carrier: 'body', sender: 'server', http: getSession })).toBe('response 200');
    expect(p.label({ spec: {} }, { carrier: 'body', sender: 'client', http: { method: 'POST', path: '/v1/session' } })).toBe('POST /v1/session');
    expect(p.label({ kind: 'event', event: { type: 'agent_start' } }, { carrier: 'frame' })).toBe('event:agent_start');
    expect(p.label({ type: 'T', kind: 'k' }, { carrier: 'frame' })).toBe('T');
  });
});
