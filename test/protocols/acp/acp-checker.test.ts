import { describe, expect, it } from 'vitest';
import type { Sender } from '../../../src/core/message.js';
import { acpProtocol, ACP_RULES } from '../../../src/protocols/acp/index.js';
import { JSON_RPC_RULES } from '../../../src/protocols/json-rpc/index.js';
import { SchemaRegistry } from '../../../src/schema/schema-registry.js';
import { ACP_SCHEMA_ID } from '../../../src/protocols/acp/schemas.js';
import { PI_SESSION_API_ID } from '../../../src/protocols/pi-rest/schemas.js';
import { SecretTracker } from '../../../src/judge/secret-tracker.js';
import { bareRegistry, testRegistry } from '../../support/shared.js';
import { piScenario } from '../../support/pi-daemon/scenario.js';

function checker(registry: SchemaRegistry = testRegistry()) {
  const c = acpProtocol.createChecker({ registry, secrets: new SecretTracker() });
  return {
    send: (sender: Sender, value: unknown) => c.judge({ sender, carrier: 'frame', value }),
    end: (how: 'complete' | 'aborted' = 'complete') => c.end(how),
  };
}

/** A client's initialize request, as ACP documents it. */
const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'test-client', version: '1.0.0' } } };

/** One ACP session on the Pi daemon stand-in's scenario: initialize, session/new, a prompt and its updates. */
function acpConversation(): Array<['client' | 'server', unknown]> {
  const scenario = piScenario();
  const rpc = (id: number, result: unknown) => ({ jsonrpc: '2.0', id, result });
  return [
    ['client', initialize],
    ['server', rpc(1, scenario.acpInitialize)],
    ['client', { jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: '/srv/work/project-a', mcpServers: [] } }],
    ['server', rpc(2, { sessionId: 'agent-a', ...scenario.acpLoadResult })],
    ['client', { jsonrpc: '2.0', id: 3, method: 'session/prompt', params: { sessionId: 'agent-a', prompt: [{ type: 'text', text: 'READFILE please read hello.txt' }] } }],
    ...scenario.acpToolTurn.map((params): ['server', unknown] => ['server', { jsonrpc: '2.0', method: 'session/update', params }]),
    ['server', rpc(3, { stopReason: 'end_turn' })],
  ];
}

describe('ACP: per-method schema checks', () => {
  it('accepts an initialize request', () => {
    const verdict = checker().send('client', initialize);
    expect(verdict).toEqual({ status: 'valid', schemaRef: `${ACP_SCHEMA_ID}#/$defs/InitializeRequest`, findings: [] });
  });

  it('rejects session/prompt whose params lack `prompt`, which the ACP root schema accepts', () => {
    const message = { jsonrpc: '2.0', id: 7, method: 'session/prompt', params: { sessionId: 'agent-a' } };
    // The negative is only meaningful because the root schema alone lets it through.
    expect(testRegistry().check(ACP_SCHEMA_ID)).toMatchObject({ ok: true });
    const root = testRegistry().check(ACP_SCHEMA_ID);
    if (root.ok) expect(root.validate(message)).toEqual([]);

    const verdict = checker().send('client', message);
    expect(verdict.status).toBe('invalid');
    expect(verdict.schemaRef).toBe(`${ACP_SCHEMA_ID}#/$defs/PromptRequest`);
    expect(verdict.findings).toEqual([
      { rule: 'schema', severity: 'error', pointer: '/params', message: "/params: missing required property 'prompt'" },
    ]);
  });

  it('checks a result against the $def of the method its request called', () => {
    const c = checker();
    c.send('client', { jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { sessionId: 's', prompt: [{ type: 'text', text: 'hi' }] } });
    const verdict = c.send('server', { jsonrpc: '2.0', id: 1, result: { stopReason: 'finished' } });
    expect(verdict.status).toBe('invalid');
    expect(verdict.schemaRef).toBe(`${ACP_SCHEMA_ID}#/$defs/PromptResponse`);
    expect(verdict.findings.map((f) => f.pointer)).toContain('/result/stopReason');
  });

  it('checks notification params per method', () => {
    const verdict = checker().send('server', { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's' } });
    expect(verdict.status).toBe('invalid');
    expect(verdict.findings).toEqual([
      { rule: 'schema', severity: 'error', pointer: '/params', message: "/params: missing required property 'update'" },
    ]);
  });

  it('checks an absent params as {} against the method $def', () => {
    const verdict = checker().send('client', { jsonrpc: '2.0', method: 'session/cancel' });
    expect(verdict.status).toBe('invalid');
    expect(verdict.findings).toEqual([
      { rule: 'schema', severity: 'error', pointer: '/params', message: "/params (absent, checked as {}): missing required property 'sessionId'" },
    ]);
    // A method whose $def requires nothing may omit params.
    expect(checker().send('client', { jsonrpc: '2.0', id: 1, method: 'logout' })).toMatchObject({ status: 'valid', findings: [] });
  });

  it('checks error responses against the JSON-RPC error shape', () => {
    const c = checker();
    c.send('client', { jsonrpc: '2.0', id: 'x', method: '_vendor/thing', params: {} });
    const verdict = c.send('server', { jsonrpc: '2.0', id: 'x', error: { code: -32601 } });
    expect(verdict.status).toBe('invalid');
    expect(verdict.schemaRef).toBe(`${ACP_SCHEMA_ID}#/$defs/Error`);
    expect(verdict.findings).toContainEqual({ rule: 'schema', severity: 'error', pointer: '/error', message: "/error: missing required property 'message'" });
  });

  it('checks extension methods by the JSON-RPC envelope only', () => {
    const c = checker();
    const request = c.send('client', { jsonrpc: '2.0', id: 1, method: '_pi/anything', params: { free: 'form' } });
    expect(request).toEqual({ status: 'valid', schemaRef: `${PI_SESSION_API_ID}#/$defs/jsonRpcMessage`, findings: [] });
    expect(c.send('server', { jsonrpc: '2.0', id: 1, result: 42 }).status).toBe('valid');
    expect(c.send('server', { jsonrpc: '1.0', method: '_pi/note' }).findings).toEqual([
      { rule: 'schema', severity: 'error', pointer: '/jsonrpc', message: '/jsonrpc: must be "2.0"' },
    ]);
  });
});

describe('ACP: behaviour', () => {
  it('warns when a request goes the wrong way for its x-side', () => {
    const verdict = checker().send('server', initialize);
    expect(verdict.status).toBe('valid');
    expect(verdict.findings).toEqual([
      {
        rule: ACP_RULES.wrongDirection,
        severity: 'warning',
        pointer: '/method',
        message: "'initialize' is a request the agent handles, so only the client may send it; the agent sent it",
      },
    ]);
  });

  it('warns when a notification goes the wrong way for its x-side', () => {
    const update = { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x' } } } };
    expect(checker().send('server', update).findings).toEqual([]);
    expect(checker().send('client', update).findings).toMatchObject([{ rule: ACP_RULES.wrongDirection, pointer: '/method' }]);
  });

  it('warns when a notification-only method is sent as a request, and the reverse', () => {
    const asRequest = checker().send('client', { jsonrpc: '2.0', id: 3, method: 'session/cancel', params: { sessionId: 's' } });
    expect(asRequest).toMatchObject({ status: 'valid', schemaRef: expect.stringContaining('CancelNotification') });
    expect(asRequest.findings).toEqual([
      { rule: ACP_RULES.wrongKind, severity: 'warning', pointer: '/id', message: "'session/cancel' is a notification in ACP, but this message has an id, which makes it a request" },
    ]);
    const asNotification = checker().send('client', { jsonrpc: '2.0', method: 'session/prompt', params: { sessionId: 's', prompt: [] } });
    expect(asNotification.findings).toMatchObject([{ rule: ACP_RULES.wrongKind, severity: 'warning', pointer: '' }]);
  });

  it('lets $/cancel_request go either way', () => {
    const cancel = { jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 3 } };
    expect(checker().send('client', cancel)).toMatchObject({ status: 'valid', findings: [] });
    expect(checker().send('server', cancel)).toMatchObject({ status: 'valid', findings: [] });
  });

  it('correlates agent-to-client requests (session/request_permission) with the client’s answer', () => {
    const c = checker();
    c.send('client', { jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { sessionId: 's', prompt: [] } });
    const ask = c.send('server', {
      jsonrpc: '2.0',
      id: 1,
      method: 'session/request_permission',
      params: { sessionId: 's', toolCall: { toolCallId: 't' }, options: [{ optionId: 'ok', name: 'Allow', kind: 'allow_once' }] },
    });
    expect(ask).toMatchObject({ status: 'valid', findings: [] });
    const answer = c.send('client', { jsonrpc: '2.0', id: 1, result: { outcome: { outcome: 'selected', optionId: 'ok' } } });
    expect(answer).toMatchObject({ status: 'valid', schemaRef: `${ACP_SCHEMA_ID}#/$defs/RequestPermissionResponse`, findings: [] });
    expect(c.send('server', { jsonrpc: '2.0', id: 1, result: { stopReason: 'end_turn' } })).toMatchObject({ status: 'valid', findings: [] });
    expect(c.end()).toEqual([]);
  });

  it('reports an unknown response id', () => {
    const verdict = checker().send('server', { jsonrpc: '2.0', id: 9, result: {} });
    expect(verdict.status).toBe('invalid');
    expect(verdict.findings).toEqual([
      { rule: JSON_RPC_RULES.unknownResponseId, severity: 'error', pointer: '/id', message: 'response id 9 from the agent answers no pending request from the client' },
    ]);
  });

  it('warns at the end about requests still pending', () => {
    const c = checker();
    c.send('client', initialize);
    expect(c.end('aborted')).toEqual([
      {
        rule: JSON_RPC_RULES.unansweredRequest,
        severity: 'warning',
        pointer: '',
        message: "request 1 ('initialize') sent by the client was never answered before the stream was aborted",
      },
    ]);
  });
});

describe('ACP: without --schemas', () => {
  it('still checks every message: the ACP schema comes from its npm package', () => {
    const c = checker(bareRegistry());
    for (const [sender, message] of acpConversation()) {
      const verdict = c.send(sender, message);
      expect(verdict, JSON.stringify(message)).toMatchObject({ status: 'valid', findings: [] });
      expect(verdict.schemaRef?.startsWith(`${ACP_SCHEMA_ID}#/$defs/`)).toBe(true);
    }
    expect(c.send('client', { jsonrpc: '2.0', id: 70, method: 'session/prompt', params: { sessionId: 's' } }).status).toBe('invalid');
  });
});

describe('ACP: without the ACP schema', () => {
  it('judges by the Pi JSON-RPC envelope alone and keeps the correlation rules', () => {
    const c = checker(SchemaRegistry.load({ useEnv: false, without: [ACP_SCHEMA_ID] }));
    const prompt = c.send('client', { jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { sessionId: 's' } });
    expect(prompt).toEqual({ status: 'valid', schemaRef: `${PI_SESSION_API_ID}#/$defs/jsonRpcMessage`, findings: [] });
    expect(c.send('server', { jsonrpc: '2.0', id: 2, result: {} }).findings).toMatchObject([{ rule: JSON_RPC_RULES.unknownResponseId }]);
  });
});

describe('ACP: module', () => {
  it('classifies by subprotocol and /apc path; a stdio channel alone is not evidence of ACP (its lines decide)', () => {
    expect(acpProtocol.classify({ transport: 'ws', subprotocol: 'agent-client-protocol.v1' })).toBe(1);
    expect(acpProtocol.classify({ transport: 'ws', path: '/v1/session/agent-a/apc' })).toBeGreaterThan(0.5);
    expect(acpProtocol.classify({ transport: 'stdio' })).toBe(0);
    expect(acpProtocol.classify({ transport: 'ws', subprotocol: 'pi-rpc.v1' })).toBe(0);
    expect(acpProtocol.classify({ transport: 'ndjson' })).toBe(0);
  });

  it('sniffs the methods ACP defines, not any JSON-RPC: a response or another method is plain JSON-RPC', () => {
    expect(acpProtocol.sniff(initialize)).toBeGreaterThanOrEqual(0.9);
    expect(acpProtocol.messageEvidence(initialize)).toBe('ACP method initialize');
    expect(acpProtocol.sniff({ jsonrpc: '2.0', method: 'session/update', params: {} })).toBeGreaterThanOrEqual(0.9);
    expect(acpProtocol.sniff({ jsonrpc: '2.0', id: 1, result: {} })).toBe(0);
    expect(acpProtocol.sniff({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBe(0);
    // MCP's initialize shares ACP's name; its protocolVersion is a date string, ACP's a number.
    expect(acpProtocol.sniff({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {} } })).toBe(0);
    expect(acpProtocol.sniff({ type: 'prompt' })).toBe(0);
    expect(acpProtocol.sniff('text')).toBe(0);
  });

  it('guesses senders from x-side', () => {
    expect(acpProtocol.guessSender(initialize)).toBe('client');
    expect(acpProtocol.guessSender({ jsonrpc: '2.0', id: 4, method: 'fs/read_text_file', params: {} })).toBe('server');
    expect(acpProtocol.guessSender({ jsonrpc: '2.0', method: 'session/cancel', params: {} })).toBe('client');
    expect(acpProtocol.guessSender({ jsonrpc: '2.0', id: 4, error: { code: 1, message: 'x' } })).toBe('server');
  });
});
