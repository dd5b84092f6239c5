import { describe, expect, it } from 'vitest';
import type { Sender } from '../../../src/core/message.js';
import { NDJSON_RULES, unixNdjsonProtocol } from '../../../src/protocols/unix-ndjson/index.js';
import { PI_NDJSON_V1_ID, PI_NDJSON_V2_ID } from '../../../src/protocols/unix-ndjson/schemas.js';
import { SecretTracker } from '../../../src/judge/secret-tracker.js';
import { bareRegistry, registryWithout, testRegistry } from '../../support/shared.js';

const HOST = 'host-019f';
/** Lines shaped like the daemon's protocol documents them (written for these tests). */
const LINES = {
  handshake: { protocolVersion: '1.0', requestId: 'req-handshake-1', operation: 'handshake', payload: {} },
  wake: { protocolVersion: '1.0', requestId: 'req-wake-1', operation: 'wake', sessionId: 'agent-a', generation: 2, idempotencyKey: 'k-1', payload: { prompt: 'hi' } },
  successResponse: { protocolVersion: '1.0', kind: 'response', requestId: 'req-status-1', hostInstanceId: HOST, ok: true, data: {} },
  errorResponse: {
    protocolVersion: '1.0',
    kind: 'response',
    requestId: 'req-wake-1',
    hostInstanceId: HOST,
    sessionId: 'agent-a',
    ok: false,
    error: { code: 'session_not_open', message: 'logical session is not open', retryable: true },
  },
  messageEvent: { protocolVersion: '1.0', kind: 'event', event: 'messageUpdate', hostInstanceId: HOST, sessionId: 'agent-a', generation: 2, sequence: 7, requestId: 'req-wake-1', data: {} },
  eventDropped: {
    protocolVersion: '1.0',
    kind: 'event',
    event: 'eventDropped',
    requestId: 'w-1',
    data: { originalEvent: 'messageUpdate', error: { code: 'outbound_record_too_large', message: 'record over the byte limit', retryable: false, details: { maxBytes: 1048576 } } },
  },
  openV2NoTools: {
    protocolVersion: '2.0',
    requestId: 'req-open-v2-configured-1',
    operation: 'open',
    sessionId: 'agent-b',
    generation: 1,
    payload: { cwd: '/workspace/agent-b', session: { mode: 'new', sessionDir: '/home/op/.pi/agent/sessions/agent-b' }, resources: { tools: 'none' } },
  },
  openV2HostTools: {
    protocolVersion: '2.0',
    requestId: 'req-open-v2-1',
    operation: 'open',
    sessionId: 'agent-a',
    generation: 2,
    payload: {
      cwd: '/workspace/agent-a',
      session: { mode: 'new' },
      resources: {
        tools: {
          mode: 'host-adapter',
          descriptor: {
            protocolVersion: '1.0',
            adapterId: 'owner-filesystem',
            endpoint: { transport: 'unix', path: '/run/user/1000/tools.sock' },
            binding: { hostInstanceId: HOST, sessionId: 'agent-a', generation: 2, capabilityHandle: 'handle-0123456789' },
          },
        },
      },
    },
  },
};

function connection() {
  const checker = unixNdjsonProtocol.createChecker({ registry: testRegistry(), secrets: new SecretTracker() });
  return {
    send: (sender: Sender, value: unknown) => checker.judge({ sender, carrier: 'line', value }),
    end: (how: 'complete' | 'aborted' = 'complete') => checker.end(how),
  };
}

const command = (requestId: string, operation: string, extra: Record<string, unknown> = {}) => ({
  protocolVersion: '1.0',
  requestId,
  operation,
  sessionId: 's',
  generation: 1,
  payload: {},
  ...extra,
});
const response = (requestId: string, extra: Record<string, unknown> = {}) => ({
  protocolVersion: '1.0',
  kind: 'response',
  requestId,
  hostInstanceId: HOST,
  ok: true,
  data: {},
  ...extra,
});
const event = (sequence: number, extra: Record<string, unknown> = {}) => ({
  protocolVersion: '1.0',
  kind: 'event',
  event: 'messageUpdate',
  hostInstanceId: HOST,
  sessionId: 's',
  generation: 1,
  sequence,
  data: {},
  ...extra,
});

/** A connection already attached to session 's' generation 1 at sequence 4. */
function attached() {
  const c = connection();
  c.send('client', command('a-1', 'attach'));
  c.send('server', response('a-1', { data: { attached: true, generation: 1, sequence: 4 } }));
  return c;
}

const rules = (v: { findings: Array<{ rule: string; severity: string; pointer: string }> }) =>
  v.findings.map((f) => ({ rule: f.rule, severity: f.severity, pointer: f.pointer }));

describe('unix-ndjson: positive control', () => {
  it('accepts interleaved commands, out-of-order responses and a contiguous event stream', () => {
    const c = attached();
    expect(c.send('client', command('w-1', 'wake', { idempotencyKey: 'k', payload: { prompt: 'hi' } })).findings).toEqual([]);
    expect(c.send('client', command('st-1', 'status')).findings).toEqual([]);
    expect(c.send('server', response('st-1')).findings).toEqual([]);
    for (const seq of [5, 6, 7]) expect(c.send('server', event(seq, { requestId: 'w-1' })).findings).toEqual([]);
    // eventDropped takes the sequence of the event it replaces.
    expect(c.send('server', { ...LINES.eventDropped, hostInstanceId: HOST, sessionId: 's', generation: 1, sequence: 8 }).findings).toEqual([]);
    expect(c.send('server', response('w-1', { sequence: 8 })).findings).toEqual([]);
    expect(c.send('client', command('d-1', 'detach')).findings).toEqual([]);
    expect(c.send('server', response('d-1')).findings).toEqual([]);
    expect(c.end()).toEqual([]);
  });

  it('starts afresh after detach and re-attach', () => {
    const c = attached();
    c.send('server', event(5));
    c.send('client', command('d-1', 'detach'));
    c.send('server', response('d-1'));
    c.send('client', command('a-2', 'attach'));
    c.send('server', response('a-2', { data: { attached: true, generation: 1, sequence: 9 } }));
    expect(c.send('server', event(10)).findings).toEqual([]);
  });
});

describe('unix-ndjson: rules', () => {
  it(NDJSON_RULES.unknownRequestId, () => {
    const c = connection();
    c.send('client', command('h-1', 'handshake'));
    const verdict = c.send('server', response('h-2'));
    expect(verdict.status).toBe('invalid');
    expect(verdict.findings).toEqual([
      { rule: NDJSON_RULES.unknownRequestId, severity: 'error', pointer: '/requestId', message: "requestId 'h-2' answers no pending command on this connection" },
    ]);
  });

  it(NDJSON_RULES.duplicateResponse, () => {
    const c = connection();
    c.send('client', command('h-1', 'handshake'));
    c.send('server', response('h-1'));
    expect(rules(c.send('server', response('h-1')))).toEqual([{ rule: NDJSON_RULES.duplicateResponse, severity: 'error', pointer: '/requestId' }]);
  });

  it(NDJSON_RULES.duplicateRequestId, () => {
    const c = connection();
    c.send('client', command('x', 'wake', { idempotencyKey: 'k', payload: { prompt: 'a' } }));
    const verdict = c.send('client', command('x', 'status'));
    expect(verdict.status).toBe('invalid');
    expect(verdict.findings).toEqual([
      {
        rule: NDJSON_RULES.duplicateRequestId,
        severity: 'error',
        pointer: '/requestId',
        message: "requestId 'x' (status) is already in flight on this connection (sent for wake); its responses cannot be told apart",
      },
    ]);
  });

  it(NDJSON_RULES.responseVersionMismatch, () => {
    const c = connection();
    c.send('client', LINES.openV2NoTools);
    const verdict = c.send('server', response('req-open-v2-configured-1'));
    expect(verdict.schemaRef).toBe(`${PI_NDJSON_V1_ID}#/$defs/response`);
    expect(rules(verdict)).toEqual([{ rule: NDJSON_RULES.responseVersionMismatch, severity: 'error', pointer: '/protocolVersion' }]);
    // The same response in the command's version is fine, and is checked by the v2 schema.
    const v2 = connection();
    v2.send('client', LINES.openV2NoTools);
    expect(v2.send('server', response('req-open-v2-configured-1', { protocolVersion: '2.0' }))).toEqual({
      status: 'valid',
      schemaRef: `${PI_NDJSON_V2_ID}#/$defs/response`,
      findings: [],
    });
  });

  it(NDJSON_RULES.unexpectedSender, () => {
    expect(rules(connection().send('server', command('h', 'handshake')))).toEqual([{ rule: NDJSON_RULES.unexpectedSender, severity: 'error', pointer: '' }]);
    expect(rules(attached().send('client', event(5)))).toEqual([{ rule: NDJSON_RULES.unexpectedSender, severity: 'error', pointer: '' }]);
  });

  it(NDJSON_RULES.eventNotAttached, () => {
    const verdict = connection().send('server', event(1));
    expect(verdict.status).toBe('valid');
    expect(verdict.findings).toEqual([
      {
        rule: NDJSON_RULES.eventNotAttached,
        severity: 'warning',
        pointer: '/sessionId',
        message: "event for session 's' generation 1 arrived although this connection never attached to it; the daemon sends events only after an explicit attach",
      },
    ]);
    // Attached to another generation of the same session: the event is stale.
    expect(rules(attached().send('server', event(5, { generation: 2 })))).toEqual([{ rule: NDJSON_RULES.eventNotAttached, severity: 'warning', pointer: '/generation' }]);
    // After a successful detach, events are unexpected again.
    const c = attached();
    c.send('client', command('d', 'detach'));
    c.send('server', response('d'));
    expect(rules(c.send('server', event(5)))).toEqual([{ rule: NDJSON_RULES.eventNotAttached, severity: 'warning', pointer: '/sessionId' }]);
  });

  it(`${NDJSON_RULES.eventNotAttached}: not for events racing the attach response`, () => {
    const c = connection();
    c.send('client', command('a', 'attach'));
    expect(c.send('server', event(3)).findings).toEqual([]);
    expect(c.send('server', response('a', { data: { attached: true, generation: 1, sequence: 2 } })).findings).toEqual([]);
    expect(c.send('server', event(4)).findings).toEqual([]);
  });

  it(NDJSON_RULES.sequenceNotIncreasing, () => {
    const c = attached();
    c.send('server', event(5));
    const verdict = c.send('server', event(5));
    expect(verdict.status).toBe('invalid');
    expect(verdict.findings).toEqual([
      { rule: NDJSON_RULES.sequenceNotIncreasing, severity: 'error', pointer: '/sequence', message: "event sequence 5 of session 's' generation 1 does not rise above the previous 5" },
    ]);
    // The attach response's sequence is the baseline too.
    expect(rules(attached().send('server', event(3)))).toEqual([{ rule: NDJSON_RULES.sequenceNotIncreasing, severity: 'error', pointer: '/sequence' }]);
  });

  it(NDJSON_RULES.sequenceGap, () => {
    const c = attached();
    const verdict = c.send('server', event(7));
    expect(verdict.status).toBe('valid');
    expect(verdict.findings).toEqual([
      { rule: NDJSON_RULES.sequenceGap, severity: 'warning', pointer: '/sequence', message: "event sequence jumps from 4 to 7 in session 's' generation 1; 2 events were not delivered" },
    ]);
    expect(c.send('server', event(8)).findings).toEqual([]);
  });

  it(NDJSON_RULES.hostInstanceChanged, () => {
    const c = connection();
    c.send('client', command('h-1', 'handshake'));
    c.send('client', command('h-2', 'status'));
    c.send('server', response('h-1'));
    expect(rules(c.send('server', response('h-2', { hostInstanceId: 'other-host' })))).toEqual([
      { rule: NDJSON_RULES.hostInstanceChanged, severity: 'warning', pointer: '/hostInstanceId' },
    ]);
  });

  it(NDJSON_RULES.unansweredCommand, () => {
    const c = connection();
    c.send('client', command('w-1', 'wake', { idempotencyKey: 'k', payload: { prompt: 'a' } }));
    c.send('client', command('s-1', 'status'));
    c.send('server', response('s-1'));
    expect(c.end('aborted')).toEqual([
      { rule: NDJSON_RULES.unansweredCommand, severity: 'warning', pointer: '', message: "command 'w-1' (wake) was never answered before the connection was aborted" },
    ]);
  });
});

describe('unix-ndjson: schema choice', () => {
  it('checks a command against the $def of its operation, for readable errors', () => {
    const verdict = connection().send('client', command('w', 'wake', { idempotencyKey: 'k', payload: {} }));
    expect(verdict.status).toBe('invalid');
    expect(verdict.schemaRef).toBe(`${PI_NDJSON_V1_ID}#/$defs/wakeCommand`);
    expect(verdict.findings).toEqual([
      { rule: 'schema', severity: 'error', pointer: '/payload', message: "/payload: missing required property 'prompt'" },
    ]);
  });

  it('reports an unknown operation once', () => {
    const verdict = connection().send('client', command('x', 'reboot'));
    expect(verdict.status).toBe('invalid');
    expect(verdict.schemaRef).toBe(`${PI_NDJSON_V1_ID}#/$defs/baseCommand`);
    expect(verdict.findings).toEqual([
      {
        rule: 'schema',
        severity: 'error',
        pointer: '/operation',
        message: '/operation: must be one of "handshake", "open", "wake", "steer", "followUp", "status", "abort", "attach", "detach", "close", "drain"',
      },
    ]);
  });

  it('rejects lines that are neither command, response nor event', () => {
    expect(connection().send('client', { protocolVersion: '1.0', kind: 'ping' }).findings).toMatchObject([{ rule: 'schema', pointer: '/kind' }]);
    expect(connection().send('client', { hello: 'world' })).toMatchObject({ status: 'invalid', schemaRef: PI_NDJSON_V1_ID });
  });

  it('uses protocol-v2.schema.json for 2.x lines and v1 for 1.x', () => {
    const v2 = LINES.openV2HostTools;
    expect(connection().send('client', v2)).toEqual({ status: 'valid', schemaRef: `${PI_NDJSON_V2_ID}#/$defs/openCommand`, findings: [] });
    // v1 stays exactly no-tools: the same open as 1.0 is rejected.
    const asV1 = connection().send('client', { ...v2, protocolVersion: '1.0' });
    expect(asV1.status).toBe('invalid');
    expect(asV1.schemaRef).toBe(`${PI_NDJSON_V1_ID}#/$defs/openCommand`);
    expect(asV1.findings.map((f) => f.pointer)).toContain('/payload/resources/tools');
  });

  it('falls back to the handshake version for lines whose own version is unreadable', () => {
    const c = connection();
    c.send('client', command('h', 'handshake', { protocolVersion: '2.0' }));
    c.send('server', response('h', { protocolVersion: '2.0', data: { protocolVersion: '2.0' } }));
    const verdict = c.send('client', command('st', 'status', { protocolVersion: 'two' }));
    expect(verdict.schemaRef).toBe(`${PI_NDJSON_V2_ID}#/$defs/statusCommand`);
    expect(verdict.findings).toMatchObject([{ pointer: '/protocolVersion' }]);
  });
});

describe('unix-ndjson: module', () => {
  it('claims the ndjson transport only', () => {
    expect(unixNdjsonProtocol.classify({ transport: 'ndjson' })).toBe(1);
    expect(unixNdjsonProtocol.classify({ transport: 'stdio' })).toBe(0);
    expect(unixNdjsonProtocol.classify({ transport: 'ws', subprotocol: 'agent-client-protocol.v1' })).toBe(0);
  });

  it('sniffs commands, responses and events, and nothing else', () => {
    expect(unixNdjsonProtocol.sniff(LINES.handshake)).toBeGreaterThanOrEqual(0.8);
    expect(unixNdjsonProtocol.sniff(LINES.errorResponse)).toBeGreaterThanOrEqual(0.8);
    expect(unixNdjsonProtocol.sniff(LINES.messageEvent)).toBeGreaterThanOrEqual(0.8);
    expect(unixNdjsonProtocol.sniff({ kind: 'response', protocolVersion: '1.0' })).toBe(0);
    expect(unixNdjsonProtocol.sniff({ jsonrpc: '2.0', id: 1, method: 'initialize' })).toBe(0);
    expect(unixNdjsonProtocol.sniff({ type: 'prompt', id: 'x' })).toBe(0);
    expect(unixNdjsonProtocol.sniff(null)).toBe(0);
  });

  it('guesses the sender from the shape', () => {
    expect(unixNdjsonProtocol.guessSender(LINES.wake)).toBe('client');
    expect(unixNdjsonProtocol.guessSender(LINES.successResponse)).toBe('server');
    expect(unixNdjsonProtocol.guessSender(LINES.eventDropped)).toBe('server');
  });
});

describe('unix-ndjson: without --schemas', () => {
  it('judges each line with the shipped protocol schema, not unchecked', () => {
    const checker = unixNdjsonProtocol.createChecker({ registry: bareRegistry(), secrets: new SecretTracker() });
    const verdict = checker.judge({ sender: 'client', carrier: 'line', value: LINES.handshake });
    expect(verdict.status).not.toBe('unchecked');
    expect(verdict.schemaRef?.startsWith(`${PI_NDJSON_V1_ID}#`), verdict.schemaRef).toBe(true);
  });
});

describe('unix-ndjson: without the protocol schemas', () => {
  const bare = () => unixNdjsonProtocol.createChecker({ registry: registryWithout(PI_NDJSON_V1_ID, PI_NDJSON_V2_ID), secrets: new SecretTracker() });

  it('leaves each line unchecked, naming protocol.schema.json and --schemas', () => {
    const checker = bare();
    for (const [sender, value] of [['client', LINES.handshake], ['server', { ...LINES.successResponse, requestId: 'req-handshake-1' }]] as const) {
      const verdict = checker.judge({ sender, carrier: 'line', value });
      expect(verdict.status).toBe('unchecked');
      expect(verdict.reason).toContain(PI_NDJSON_V1_ID);
      expect(verdict.reason).toContain('--schemas');
      expect(verdict.findings).toEqual([]);
    }
  });

  it('still reports behavioural errors, which make the line invalid', () => {
    const verdict = bare().judge({ sender: 'server', carrier: 'line', value: LINES.successResponse });
    expect(verdict.status).toBe('invalid');
    expect(verdict.reason).toContain(PI_NDJSON_V1_ID);
    expect(verdict.findings.map((f) => f.rule)).toEqual(['ndjson-unknown-request-id']);
  });
});
