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
  });
});
