import { describe, expect, it } from 'vitest';
import type { Finding } from '../../../src/core/finding.js';
import type { Sender } from '../../../src/core/message.js';
import { classifyJsonRpc, JSON_RPC_RULES, JsonRpcCorrelator, type Correlation } from '../../../src/protocols/json-rpc/index.js';

function stream() {
  const correlator = new JsonRpcCorrelator();
  return {
    correlator,
    send: (sender: Sender, value: unknown): Correlation => correlator.observe(sender, classifyJsonRpc(value)),
  };
}

const only = (findings: Finding[]) => findings.map((f) => ({ rule: f.rule, severity: f.severity, pointer: f.pointer }));

describe('classifyJsonRpc', () => {
  it('tells requests, notifications and responses apart by their members', () => {
    expect(classifyJsonRpc({ jsonrpc: '2.0', id: 1, method: 'a' })).toEqual({ kind: 'request', id: 1, method: 'a' });
    expect(classifyJsonRpc({ jsonrpc: '2.0', id: null, method: 'a' })).toEqual({ kind: 'request', id: null, method: 'a' });
    expect(classifyJsonRpc({ jsonrpc: '2.0', method: 'a', params: [] })).toEqual({ kind: 'notification', method: 'a' });
    expect(classifyJsonRpc({ jsonrpc: '2.0', id: 'x', result: null })).toEqual({ kind: 'response', id: 'x', hasResult: true, hasError: false });
    expect(classifyJsonRpc({ jsonrpc: '2.0', id: 2, error: { code: 1, message: 'm' } })).toEqual({ kind: 'response', id: 2, hasResult: false, hasError: true });
    expect(classifyJsonRpc({ jsonrpc: '2.0', id: 2 })).toEqual({ kind: 'response', id: 2, hasResult: false, hasError: false });
    expect(classifyJsonRpc({ jsonrpc: '2.0', result: 1 })).toEqual({ kind: 'response', id: undefined, hasResult: true, hasError: false });
    expect(classifyJsonRpc({ jsonrpc: '2.0', method: 7 })).toEqual({ kind: 'other' });
    expect(classifyJsonRpc([{ jsonrpc: '2.0', method: 'batch' }])).toEqual({ kind: 'other' });
    expect(classifyJsonRpc('x')).toEqual({ kind: 'other' });
    expect(classifyJsonRpc({})).toEqual({ kind: 'other' });
  });
});

describe('JsonRpcCorrelator: positive controls', () => {
  it('matches interleaved requests in both directions with their responses', () => {
    const s = stream();
    expect(s.send('client', { jsonrpc: '2.0', id: 1, method: 'session/prompt' }).findings).toEqual([]);
    // The server reuses id 1 for its own request: ids are per direction.
    expect(s.send('server', { jsonrpc: '2.0', id: 1, method: 'session/request_permission' }).findings).toEqual([]);
    expect(s.send('client', { jsonrpc: '2.0', id: 2, method: 'session/list' }).findings).toEqual([]);
    expect(s.send('server', { jsonrpc: '2.0', method: 'session/update' }).findings).toEqual([]);
    expect(s.send('client', { jsonrpc: '2.0', id: 1, result: { outcome: 'x' } })).toEqual({
      findings: [],
      answers: { id: 1, method: 'session/request_permission', sender: 'server' },
    });
    expect(s.send('server', { jsonrpc: '2.0', id: 2, result: {} }).answers?.method).toBe('session/list');
    expect(s.send('server', { jsonrpc: '2.0', id: 1, error: { code: -32800, message: 'cancelled' } }).answers?.method).toBe('session/prompt');
    expect(s.correlator.inFlight()).toEqual([]);
    expect(s.correlator.end('complete')).toEqual([]);
  });

  it('keeps string and number ids apart', () => {
    const s = stream();
    s.send('client', { jsonrpc: '2.0', id: 1, method: 'a' });
    s.send('client', { jsonrpc: '2.0', id: '1', method: 'b' });
    expect(s.send('server', { jsonrpc: '2.0', id: '1', result: 0 }).answers?.method).toBe('b');
    expect(s.send('server', { jsonrpc: '2.0', id: 1, result: 0 }).answers?.method).toBe('a');
  });

  it('allows an id again once its request was answered', () => {
    const s = stream();
    s.send('client', { jsonrpc: '2.0', id: 1, method: 'a' });
    s.send('server', { jsonrpc: '2.0', id: 1, result: 0 });
    expect(s.send('client', { jsonrpc: '2.0', id: 1, method: 'b' }).findings).toEqual([]);
    expect(s.send('server', { jsonrpc: '2.0', id: 1, result: 0 })).toMatchObject({ findings: [], answers: { method: 'b' } });
  });

  it('accepts an error response with id null (the request could not be read)', () => {
    const s = stream();
    expect(s.send('server', { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }).findings).toEqual([]);
  });

  it('ignores notifications and unclassifiable messages', () => {
    const s = stream();
    expect(s.send('client', { jsonrpc: '2.0', method: 'session/cancel' }).findings).toEqual([]);
    expect(s.send('client', { hello: 1 }).findings).toEqual([]);
    expect(s.correlator.end('complete')).toEqual([]);
  });
});

describe('JsonRpcCorrelator: rules', () => {
  it(JSON_RPC_RULES.unknownResponseId, () => {
    const s = stream();
    s.send('client', { jsonrpc: '2.0', id: 1, method: 'a' });
    const { findings } = s.send('server', { jsonrpc: '2.0', id: 2, result: {} });
    expect(findings).toEqual([
      { rule: JSON_RPC_RULES.unknownResponseId, severity: 'error', pointer: '/id', message: 'response id 2 from the server answers no pending request from the client' },
    ]);
  });

  it(`${JSON_RPC_RULES.unknownResponseId}: a response travelling the same way as its request`, () => {
    const s = stream();
    s.send('client', { jsonrpc: '2.0', id: 'abc', method: 'a' });
    const { findings } = s.send('client', { jsonrpc: '2.0', id: 'abc', result: {} });
    expect(only(findings)).toEqual([{ rule: JSON_RPC_RULES.unknownResponseId, severity: 'error', pointer: '/id' }]);
    expect(findings[0].message).toContain('a response must answer a request from the server');
  });

  it(JSON_RPC_RULES.duplicateResponse, () => {
    const s = stream();
    s.send('client', { jsonrpc: '2.0', id: 1, method: 'a' });
    s.send('server', { jsonrpc: '2.0', id: 1, result: {} });
    const { findings } = s.send('server', { jsonrpc: '2.0', id: 1, result: {} });
    expect(findings).toEqual([
      { rule: JSON_RPC_RULES.duplicateResponse, severity: 'error', pointer: '/id', message: 'the server answered request 1 again; it was already answered' },
    ]);
  });

  it(JSON_RPC_RULES.duplicateRequestId, () => {
    const s = stream();
    s.send('client', { jsonrpc: '2.0', id: 5, method: 'session/prompt' });
    const { findings } = s.send('client', { jsonrpc: '2.0', id: 5, method: 'session/list' });
    expect(only(findings)).toEqual([{ rule: JSON_RPC_RULES.duplicateRequestId, severity: 'error', pointer: '/id' }]);
    expect(findings[0].message).toBe("request id 5 ('session/list') is already in flight from the client (sent for 'session/prompt'); responses cannot be told apart");
    // Both duplicates can still be answered without a cascade of unknown-id findings.
    expect(s.send('server', { jsonrpc: '2.0', id: 5, result: {} }).findings).toEqual([]);
    expect(s.send('server', { jsonrpc: '2.0', id: 5, result: {} }).findings).toEqual([]);
  });

  it(JSON_RPC_RULES.resultAndError, () => {
    const s = stream();
    s.send('client', { jsonrpc: '2.0', id: 1, method: 'a' });
    const { findings, answers } = s.send('server', { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } });
    expect(only(findings)).toEqual([{ rule: JSON_RPC_RULES.resultAndError, severity: 'error', pointer: '/error' }]);
    expect(answers?.method).toBe('a');
  });

  it(JSON_RPC_RULES.noResultOrError, () => {
    const s = stream();
    s.send('client', { jsonrpc: '2.0', id: 1, method: 'a' });
    const { findings } = s.send('server', { jsonrpc: '2.0', id: 1 });
    expect(only(findings)).toEqual([{ rule: JSON_RPC_RULES.noResultOrError, severity: 'error', pointer: '' }]);
  });

  it(JSON_RPC_RULES.responseWithoutId, () => {
    const { findings } = stream().send('server', { jsonrpc: '2.0', result: {} });
    expect(only(findings)).toEqual([{ rule: JSON_RPC_RULES.responseWithoutId, severity: 'error', pointer: '' }]);
  });

  it(JSON_RPC_RULES.nullRequestId, () => {
    const s = stream();
    const { findings } = s.send('client', { jsonrpc: '2.0', id: null, method: 'a' });
    expect(only(findings)).toEqual([{ rule: JSON_RPC_RULES.nullRequestId, severity: 'warning', pointer: '/id' }]);
    expect(s.send('server', { jsonrpc: '2.0', id: null, result: 1 })).toMatchObject({ findings: [], answers: { method: 'a' } });
  });

  it(JSON_RPC_RULES.unansweredRequest, () => {
    const s = stream();
    s.send('client', { jsonrpc: '2.0', id: 1, method: 'a' });
    s.send('server', { jsonrpc: '2.0', id: 'srv-1', method: 'b' });
    s.send('client', { jsonrpc: '2.0', id: 2, method: 'c' });
    s.send('server', { jsonrpc: '2.0', id: 1, result: {} });
    expect(s.correlator.end('complete')).toEqual([
      { rule: JSON_RPC_RULES.unansweredRequest, severity: 'warning', pointer: '', message: "request 2 ('c') sent by the client was never answered before the stream ended" },
      { rule: JSON_RPC_RULES.unansweredRequest, severity: 'warning', pointer: '', message: 'request "srv-1" (\'b\') sent by the server was never answered before the stream ended' },
    ]);
  });

  it('names the sides as the protocol does', () => {
    const correlator = new JsonRpcCorrelator({ names: { server: 'agent' } });
    const { findings } = correlator.observe('server', classifyJsonRpc({ jsonrpc: '2.0', id: 3, result: {} }));
    expect(findings[0].message).toBe('response id 3 from the agent answers no pending request from the client');
  });
});
