import { describe, expect, it } from 'vitest';
import { messageLabel } from '../../src/core/message-label.js';
import { displayLabel } from '../../src/ui/server/display-label.js';

const line = { channel: 'stdout', carrier: 'line' };

describe('message labels', () => {
  it('names a message by its type, frame kind or JSON-RPC method', () => {
    expect(messageLabel({ type: 'RUN_STARTED', threadId: 't' }, line)).toBe('RUN_STARTED');
    expect(messageLabel({ kind: 'event', event: { type: 'agent_start' } }, line)).toBe('event:agent_start');
    expect(messageLabel({ kind: 'ready' }, line)).toBe('ready');
    expect(messageLabel({ jsonrpc: '2.0', id: 1, method: 'session/prompt', params: {} }, line)).toBe('session/prompt');
    expect(messageLabel({ jsonrpc: '2.0', id: 1, result: {} }, line)).toBe('response');
    expect(messageLabel({ jsonrpc: '2.0', params: {} }, line)).toBe('json-rpc');
    expect(messageLabel([1, 2], line)).toBe('object');
    expect(messageLabel(42, line)).toBe('number');
    expect(messageLabel(undefined, line)).toBe('stdout');
    expect(messageLabel(undefined, { channel: null, carrier: 'body' })).toBe('body');
  });

  it('lets the inspector name RunAgentInput and error responses without changing how diff aligns them', () => {
    const input = { threadId: 't1', runId: 'r1', messages: [], tools: [], context: [], state: {}, forwardedProps: {} };
    const failed = { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found' } };
    expect(displayLabel(input, { channel: null, carrier: 'body' })).toBe('RunAgentInput');
    expect(messageLabel(input, { channel: null, carrier: 'body' })).toBe('object');
    expect(displayLabel(failed, line)).toBe('error response');
    expect(messageLabel(failed, line)).toBe('response');
    // Everything else keeps the alignment label.
    expect(displayLabel({ type: 'prompt' }, line)).toBe('prompt');
    expect(displayLabel({ jsonrpc: '2.0', id: 1, result: {} }, line)).toBe('response');
    expect(displayLabel([1], line)).toBe('object');
    expect(displayLabel(null, line)).toBe('object');
    expect(displayLabel('text', line)).toBe('string');
    expect(displayLabel(undefined, line)).toBe('stdout');
    // A type that reads `object` names nothing more than a nameless object does: RunAgentInput still wins.
    expect(displayLabel({ ...input, type: 'object' }, { channel: null, carrier: 'body' })).toBe('RunAgentInput');
    expect(displayLabel({ type: 'object', ok: true }, line)).toBe('object');
  });

  it('names a JSON body with no type of its own by its schema, else its request line or status', () => {
    const body = { channel: null, carrier: 'body' };
    const request = { sender: 'client' as const, schemaRef: null, method: 'POST', path: '/v1/session', status: 202 };
    const response = { ...request, sender: 'server' as const };
    expect(displayLabel({ sessionId: 'x' }, body, { ...request, schemaRef: 'https://x.test/api.json#/$defs/sessionCreateRequest' })).toBe('sessionCreateRequest');
    expect(displayLabel({ ok: true }, body, { ...response, schemaRef: 'https://x.test/agui.json#RunError' })).toBe('RunError');
    expect(displayLabel({ sessionId: 'x' }, body, request)).toBe('POST /v1/session');
    expect(displayLabel([{ id: 1 }], body, response)).toBe('response 202');
    // A schema ref without a fragment names nothing; a typed message keeps its type.
    expect(displayLabel({ sessionId: 'x' }, body, { ...request, schemaRef: 'https://x.test/api.json' })).toBe('POST /v1/session');
    expect(displayLabel({ type: 'RUN_STARTED' }, body, { ...response, schemaRef: 'https://x.test/agui.json#RunStarted' })).toBe('RUN_STARTED');
    // Off a body (a WebSocket frame) with no schema, the request line would mislead: it stays 'object'.
    expect(displayLabel({ a: 1 }, { channel: null, carrier: 'frame' }, request)).toBe('object');
    // The diff's alignment label is unchanged.
    expect(messageLabel({ sessionId: 'x' }, body)).toBe('object');
  });

  it("falls back to a body's request line or status exactly as messageLabel does, having no rule of its own", () => {
    const places = [
      { channel: null, carrier: 'body' },
      { channel: 'text', carrier: 'frame' },
    ];
    const contexts = [
      { sender: 'client' as const, schemaRef: null, method: 'POST', path: '/v1/session', status: 202 },
      { sender: 'server' as const, schemaRef: null, method: 'POST', path: '/v1/session', status: 202 },
      // No status (an answer cut off before it): the request line, as messageLabel says.
      { sender: 'server' as const, schemaRef: null, method: 'GET', path: '/v1/x', status: null },
      { sender: 'client' as const, schemaRef: null, method: null, path: null, status: null },
    ];
    const values = [{ ok: true }, [1], 'text', 7, false, null, { type: 'RUN_STARTED' }, { jsonrpc: '2.0', id: 1, result: {} }];
    for (const place of places) {
      for (const context of contexts) {
        for (const value of values) {
          const expected = messageLabel(value, { ...place, sender: context.sender, http: context });
          expect(displayLabel(value, place, context), `${JSON.stringify(value)} ${place.carrier} ${JSON.stringify(context)}`).toBe(expected);
        }
      }
    }
    expect(displayLabel({ ok: true }, places[0], contexts[2])).toBe('GET /v1/x');
    expect(displayLabel('text', places[0], contexts[0])).toBe('POST /v1/session');
  });
});
