import { describe, expect, it } from 'vitest';
import { piRpcProtocol } from '../../../src/protocols/pi-rpc/index.js';
import { PI_RPC_RULES } from '../../../src/protocols/pi-rpc/rules.js';
import { testRegistry } from '../../support/shared.js';
import { behaviourFindings, Conversation } from './conversation.js';

const channel = () => new Conversation(piRpcProtocol, testRegistry(), 'line');

const CONFIRM = { type: 'extension_ui_request', id: 'ui-1', method: 'confirm', title: 'Proceed?', message: 'Run it?' };

describe('pi-rpc behaviour rules: one negative each, with rule id and pointer', () => {
  it('response-unknown-id: a response echoes an id nobody sent', () => {
    const c = channel();
    c.client({ id: 'a', type: 'get_state' });
    const verdict = c.server({ id: 'b', type: 'response', command: 'get_state', success: true });
    expect(verdict.status).toBe('invalid');
    expect(behaviourFindings(verdict)).toEqual([expect.objectContaining({ rule: 'response-unknown-id', severity: 'error', pointer: '/id' })]);
  });

  it('response-already-answered: a second response to the same id', () => {
    const c = channel();
    c.client({ id: 'a', type: 'get_state' });
    expect(c.server({ id: 'a', type: 'response', command: 'get_state', success: true }).status).toBe('valid');
    const verdict = c.server({ id: 'a', type: 'response', command: 'get_state', success: true });
    expect(verdict.status).toBe('invalid');
    expect(behaviourFindings(verdict)).toEqual([expect.objectContaining({ rule: 'response-already-answered', pointer: '/id' })]);
  });

  it('response-command-mismatch: the response names another command type', () => {
    const c = channel();
    c.client({ id: 'a', type: 'get_state' });
    const verdict = c.server({ id: 'a', type: 'response', command: 'get_messages', success: true });
    expect(verdict.status).toBe('invalid');
    expect(behaviourFindings(verdict)).toEqual([expect.objectContaining({ rule: 'response-command-mismatch', pointer: '/command' })]);
    expect(verdict.findings[0].message).toContain("'get_state'");
  });

  it('response-missing-id: the command had an id, the response drops it', () => {
    const c = channel();
    c.client({ id: 'a', type: 'get_state' });
    const verdict = c.server({ type: 'response', command: 'get_state', success: true });
    expect(verdict.status).toBe('invalid');
    expect(behaviourFindings(verdict)).toEqual([expect.objectContaining({ rule: 'response-missing-id', pointer: '' })]);
    // The command counts as answered, so the end of the stream reports nothing more.
    expect(c.end()).toEqual([]);
  });

  it('response-unmatched: an id-less response for a command type nobody sent', () => {
    const c = channel();
    c.client({ type: 'get_state' });
    const verdict = c.server({ type: 'response', command: 'abort', success: true });
    expect(verdict.status).toBe('invalid');
    expect(behaviourFindings(verdict)).toEqual([expect.objectContaining({ rule: 'response-unmatched', pointer: '/command' })]);
  });

  it('duplicate-command-id: a command reuses an id still in flight (warning; both responses still match)', () => {
    const c = channel();
    c.client({ id: 'a', type: 'get_state' });
    const verdict = c.client({ id: 'a', type: 'get_messages' });
    expect(verdict.status).toBe('valid');
    expect(verdict.findings).toEqual([expect.objectContaining({ rule: 'duplicate-command-id', severity: 'warning', pointer: '/id' })]);
    expect(c.server({ id: 'a', type: 'response', command: 'get_state', success: true }).findings).toEqual([]);
    expect(c.server({ id: 'a', type: 'response', command: 'get_messages', success: true }).findings).toEqual([]);
  });

  it('command-unanswered: a clean end with a command in flight (warning), nothing when aborted', () => {
    const c = channel();
    c.client({ id: 'a', type: 'get_state' });
    c.client({ type: 'abort' });
    expect(c.end('complete')).toEqual([
      expect.objectContaining({ rule: 'command-unanswered', severity: 'warning', pointer: '', message: expect.stringContaining('"a"') }),
      expect.objectContaining({ rule: 'command-unanswered', message: expect.stringContaining('without id') }),
    ]);
    const cut = channel();
    cut.client({ id: 'a', type: 'get_state' });
    expect(cut.end('aborted')).toEqual([]);
  });

  it('extension-ui-unknown-request: an answer to a request never seen, and a second answer', () => {
    const c = channel();
    const stray = c.client({ type: 'extension_ui_response', id: 'nope', confirmed: true });
    expect(stray.status).toBe('valid');
    expect(stray.findings).toEqual([expect.objectContaining({ rule: 'extension-ui-unknown-request', severity: 'warning', pointer: '/id' })]);
    c.server(CONFIRM);
    expect(c.client({ type: 'extension_ui_response', id: 'ui-1', confirmed: true }).findings).toEqual([]);
    const again = c.client({ type: 'extension_ui_response', id: 'ui-1', confirmed: false });
    expect(again.findings).toEqual([expect.objectContaining({ rule: 'extension-ui-unknown-request', message: expect.stringContaining('already answered') })]);
  });

  it('extension-ui-not-dialog: answering a fire-and-forget notify', () => {
    const c = channel();
    c.server({ type: 'extension_ui_request', id: 'n-1', method: 'notify', message: 'hi' });
    const verdict = c.client({ type: 'extension_ui_response', id: 'n-1', value: 'ok' });
    expect(verdict.findings).toEqual([expect.objectContaining({ rule: 'extension-ui-not-dialog', severity: 'warning', pointer: '/id' })]);
  });

  it('extension-ui-answer-shape: confirm answered with a value, select with a boolean', () => {
    const c = channel();
    c.server(CONFIRM);
    expect(c.client({ type: 'extension_ui_response', id: 'ui-1', value: 'yes' }).findings).toEqual([
      expect.objectContaining({ rule: 'extension-ui-answer-shape', severity: 'warning', pointer: '/confirmed' }),
    ]);
    c.server({ type: 'extension_ui_request', id: 'ui-2', method: 'select', title: 'Pick', options: ['a'] });
    expect(c.client({ type: 'extension_ui_response', id: 'ui-2', confirmed: true }).findings).toEqual([
      expect.objectContaining({ rule: 'extension-ui-answer-shape', pointer: '/value' }),
    ]);
  });

  it('extension-ui-ack-unexpected: a daemon acknowledgement with no answer outstanding', () => {
    const c = channel();
    const verdict = c.server({ type: 'response', command: 'extension_ui_response', success: true });
    expect(verdict.status).toBe('valid');
    expect(verdict.findings).toEqual([expect.objectContaining({ rule: 'extension-ui-ack-unexpected', severity: 'warning', pointer: '/command' })]);
  });

  it('response-uncorrelatable: a capacity rejection without id on a raw channel names the command it answers', () => {
    const c = channel();
    c.client({ id: 'p', type: 'prompt', message: 'hi' });
    const verdict = c.server({ type: 'response', command: 'unknown', success: false, error: 'rpc_in_flight_capacity' });
    expect(verdict.findings).toEqual([
      expect.objectContaining({ rule: 'response-uncorrelatable', severity: 'warning', pointer: '', message: expect.stringContaining(`command 'prompt' with id "p"`) }),
    ]);
    expect(c.end()).toEqual([]);
  });

  it('response-uncorrelatable: an id-less rejection two commands can answer names both; their answers are never second answers', () => {
    const c = channel();
    c.client({ id: 'q1', type: 'get_state' });
    c.client({ id: 'q2', type: 'get_state' });
    expect(c.server({ type: 'response', command: 'unknown', success: false, error: 'rpc_in_flight_capacity' }).findings).toEqual([
      expect.objectContaining({ rule: 'response-uncorrelatable', message: expect.stringContaining(`one of 2 commands the daemon can have rejected: command 'get_state' with id "q1", command 'get_state' with id "q2"`) }),
    ]);
    expect(c.server({ type: 'response', id: 'q2', command: 'get_state', success: true, data: {} }).findings).toEqual([]);
    // q1 is then the rejected one.
    expect(c.end()).toEqual([]);
    expect(c.server({ type: 'response', id: 'q2', command: 'get_state', success: true, data: {} }).findings).toEqual([
      expect.objectContaining({ rule: 'response-already-answered', severity: 'error' }),
    ]);
  });

  it('bash-update-unknown-command: a bash_execution_update for an id that was not a bash command', () => {
    const c = channel();
    c.client({ id: 'g', type: 'get_state' });
    const verdict = c.server({ type: 'bash_execution_update', id: 'g', delta: 'out' });
    expect(verdict.status).toBe('valid');
    expect(verdict.findings).toEqual([expect.objectContaining({ rule: 'bash-update-unknown-command', severity: 'warning', pointer: '/id' })]);
  });

  it('wrong-direction: the agent sends a command (the schema alone accepts it as an event)', () => {
    const c = channel();
    const verdict = c.server({ id: 'x', type: 'prompt', message: 'hi' });
    expect(verdict.status).toBe('invalid');
    expect(verdict.findings).toEqual([expect.objectContaining({ rule: 'wrong-direction', severity: 'error', pointer: '/type' })]);
  });

  it('every rule in PI_RPC_RULES has a negative test above', () => {
    expect(Object.values(PI_RPC_RULES).map((r) => r.id).sort()).toEqual([
      'bash-update-unknown-command',
      'command-unanswered',
      'duplicate-command-id',
      'extension-ui-ack-unexpected',
      'extension-ui-answer-shape',
      'extension-ui-not-dialog',
      'extension-ui-unknown-request',
      'response-already-answered',
      'response-command-mismatch',
      'response-missing-id',
      'response-uncorrelatable',
      'response-unknown-id',
      'response-unmatched',
      'wrong-direction',
    ]);
  });
});

describe('pi-rpc behaviour rules: positive controls', () => {
  it('accepts the parse-error response, which has no id and answers no command', () => {
    const c = channel();
    expect(c.line('client', '{not json').findings.map((f) => f.rule)).toEqual(['invalid-json']);
    expect(c.server({ type: 'response', command: 'parse', success: false, error: 'Failed to parse command' })).toMatchObject({ status: 'valid', findings: [] });
  });

  it('accepts the unknown-command response, which echoes the id and the unknown type', () => {
    const c = channel();
    expect(c.client({ id: 'u1', type: 'no_such_command' }).status).toBe('invalid');
    expect(c.server({ id: 'u1', type: 'response', command: 'no_such_command', success: false, error: 'Unknown command: no_such_command' })).toMatchObject({ status: 'valid', findings: [] });
    expect(c.end()).toEqual([]);
  });

  it('matches id-less responses to id-less commands by type, oldest first, whatever the order', () => {
    const c = channel();
    c.client({ type: 'get_state' });
    c.client({ type: 'get_messages' });
    expect(c.server({ type: 'response', command: 'get_messages', success: true }).findings).toEqual([]);
    expect(c.server({ type: 'response', command: 'get_state', success: true }).findings).toEqual([]);
    expect(c.end()).toEqual([]);
  });

  it('keeps 1 and "1" apart as ids', () => {
    const c = channel();
    c.client({ id: 1, type: 'get_state' });
    expect(behaviourFindings(c.server({ id: '1', type: 'response', command: 'get_state', success: true }))).toEqual([
      expect.objectContaining({ rule: 'response-unknown-id' }),
    ]);
  });

  it('accepts the daemon acknowledgement of an extension_ui_response on pi-rpc.v1', () => {
    const c = channel();
    c.server(CONFIRM);
    expect(c.client({ type: 'extension_ui_response', id: 'ui-1', cancelled: true })).toMatchObject({ status: 'valid', findings: [] });
    expect(c.server({ type: 'response', command: 'extension_ui_response', success: true })).toMatchObject({ status: 'valid', findings: [] });
    expect(c.end()).toEqual([]);
  });

  it('accepts bash_execution_update for a bash command in flight or just answered, and without id', () => {
    const c = channel();
    c.client({ id: 'b1', type: 'bash', command: 'ls' });
    expect(c.server({ type: 'bash_execution_update', id: 'b1', delta: 'a' }).findings).toEqual([]);
    expect(c.server({ id: 'b1', type: 'response', command: 'bash', success: true, data: { output: 'a', exitCode: 0, cancelled: false, truncated: false } }).findings).toEqual([]);
    expect(c.server({ type: 'bash_execution_update', id: 'b1', delta: '' }).findings).toEqual([]);
    expect(c.server({ type: 'bash_execution_update', delta: 'x' }).findings).toEqual([]);
  });

  it('accepts a prompt whose response comes after its extension dialogs (stdio-extension-ui order)', () => {
    const c = channel();
    c.client({ id: 'x1', type: 'prompt', message: '/uidemo' });
    c.server(CONFIRM);
    expect(c.client({ type: 'extension_ui_response', id: 'ui-1', confirmed: true }).findings).toEqual([]);
    expect(c.server({ id: 'x1', type: 'response', command: 'prompt', success: true }).findings).toEqual([]);
    expect(c.end()).toEqual([]);
  });
});
