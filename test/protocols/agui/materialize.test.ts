/**
 * The AG-UI run model (protocols/agui/materialize.ts): what the client holds after a stream of
 * events. First against the official client itself (@ag-ui/client HttpAgent over a real socket,
 * on every scenario of run-scenarios.ts), then fact by fact: snapshots, deltas, chunks, reasoning,
 * tool calls, state patches and the outcome.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HttpAgent } from '@ag-ui/client';
import type { BaseEvent, RunAgentInput } from '@ag-ui/core';
import { AguiRunModel, materializeRun } from '../../../src/protocols/agui/materialize.js';
import { startAguiAgent, type AguiAgent } from '../../support/agui-agent.js';
import { RUN_SCENARIOS } from './run-scenarios.js';

const INPUT = { threadId: 't1', runId: 'r1', state: { counter: -1 }, messages: [{ id: 'u1', role: 'user', content: 'Hi' }] };

describe('the run model materialises what @ag-ui/client does', () => {
  let standIn: AguiAgent | undefined;
  afterEach(async () => {
    await standIn?.close();
    standIn = undefined;
  });

  for (const scenario of RUN_SCENARIOS) {
    it(scenario.name, async () => {
      standIn = await startAguiAgent({ script: (input: RunAgentInput) => scenario.events(input.threadId, input.runId) as unknown as BaseEvent[] });
      const agent = new HttpAgent({ url: `${standIn.url}/agent`, threadId: 't1', initialMessages: INPUT.messages as never, initialState: INPUT.state });
      // The client warns about the patch that fails on purpose; that is the client's business here.
      const warn = console.warn;
      console.warn = () => undefined;
      try {
        await agent.runAgent({ runId: 'r1' });
      } finally {
        console.warn = warn;
      }
      const sent = standIn.requests[0].body!;
      const ours = materializeRun(scenario.events(sent.threadId, sent.runId), sent);
      expect(ours.messages).toEqual(agent.messages);
      expect(ours.state).toEqual(agent.state);
    });
  }
});

const events = (name: string) => RUN_SCENARIOS.find((s) => s.name.startsWith(name))!.events('t1', 'r1');

describe('the run model, fact by fact', () => {
  it('starts from the input: its messages (not activity ones) and its state', () => {
    const input = { ...INPUT, messages: [...INPUT.messages, { id: 'x', role: 'activity', activityType: 'P', content: {} }] };
    const run = materializeRun([], input);
    expect(run.messages).toEqual([{ id: 'u1', role: 'user', content: 'Hi' }]);
    expect(run.state).toEqual({ counter: -1 });
    expect(run.outcome).toEqual({ status: 'open', at: null });
    expect(materializeRun([]).state).toEqual({});
  });

  it('MESSAGES_SNAPSHOT reconciles by id: in place, dropping, appending; streamed reasoning it does not carry survives', () => {
    const run = materializeRun(events('MESSAGES_SNAPSHOT'), INPUT);
    expect(run.messages.map((m) => m.id)).toEqual(['u1', 'th1', 'a', 'r9', 'c']);
    expect(run.messages.find((m) => m.id === 'a')).toMatchObject({ content: 'final and more', toolCalls: [{ id: 'c9', function: { name: 'lookup', arguments: '{"k":1}' } }] });
    expect(run.messages.find((m) => m.id === 'th1')).toMatchObject({ role: 'reasoning', content: 'hmm' });
    // A snapshot that carries reasoning of its own owns reasoning: ours is dropped.
    const owned = materializeRun([
      { type: 'REASONING_MESSAGE_START', messageId: 'th1', role: 'reasoning' },
      { type: 'MESSAGES_SNAPSHOT', messages: [{ id: 'th2', role: 'reasoning', content: 'theirs' }] },
    ]);
    expect(owned.messages.map((m) => m.id)).toEqual(['th2']);
  });

  it('a message or tool call a snapshot replaced mid-stream takes the next deltas', () => {
    const run = materializeRun(events('a MESSAGES_SNAPSHOT in the middle'), INPUT);
    expect(run.messages[1]).toEqual({ id: 'a', role: 'assistant', content: 'restated and more', toolCalls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }] });
  });

  it('does not change the events it reads: a snapshot message it appends to stays as sent', () => {
    const stream = [
      { type: 'MESSAGES_SNAPSHOT', messages: [{ id: 'a', role: 'assistant', content: 'x', toolCalls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{' } }] }] },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c', delta: '}' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a', delta: 'y' },
    ];
    const before = JSON.stringify(stream);
    const run = materializeRun(stream);
    expect(run.messages[0]).toMatchObject({ content: 'xy', toolCalls: [{ function: { arguments: '{}' } }] });
    expect(JSON.stringify(stream)).toBe(before);
  });

  it('a tool result goes right after the assistant message that owns its call, after earlier results', () => {
    expect(materializeRun(events('text, state snapshot'), INPUT).messages.map((m) => m.id)).toEqual(['u1', 'm1', 'r1', 'm2']);
    const parallel = materializeRun(events('two runs'), INPUT);
    // c1 had no parent: the client names its assistant message after the call; c2 and c3 share p2.
    expect(parallel.messages.map((m) => [m.id, m.role])).toEqual([['u1', 'user'], ['c1', 'assistant'], ['p2', 'assistant'], ['r3', 'tool'], ['r2', 'tool'], ['u2', 'user'], ['m9', 'assistant']]);
    expect(parallel.messages[2].toolCalls).toEqual([
      { id: 'c2', type: 'function', function: { name: 'two', arguments: '"x"' } },
      { id: 'c3', type: 'function', function: { name: 'three', arguments: '[1,2]' } },
    ]);
  });

  it('a repeated TOOL_CALL_START renames the call and keeps its arguments, in one place', () => {
    const run = materializeRun([
      { type: 'TOOL_CALL_START', toolCallId: 'c', toolCallName: 'f' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c', delta: '{}' },
      { type: 'TOOL_CALL_START', toolCallId: 'c', toolCallName: 'g' },
    ]);
    expect(run.messages).toEqual([{ id: 'c', role: 'assistant', toolCalls: [{ id: 'c', type: 'function', function: { name: 'g', arguments: '{}' } }] }]);
  });

  it('expands *_CHUNK events: id-less continuations join their lane, and what follows closes the item', () => {
    const stream = events('chunks');
    const model = new AguiRunModel(INPUT);
    stream.forEach((ev, i) => model.apply(ev, i));
    expect(model.messages.map((m) => [m.id, m.role, m.content])).toEqual([
      ['u1', 'user', 'Hi'],
      ['th1', 'reasoning', 'Thinking hard.'],
      ['m1', 'assistant', 'Hello!'],
      ['m2', 'assistant', 'Second.'],
    ]);
    expect(model.messages[2].toolCalls).toEqual([{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } }]);
    // m1 was closed by the TOOL_CALL_CHUNK (#6), the call by the STATE_SNAPSHOT (#8), m2 by RUN_FINISHED (#10).
    expect(model.messageProvenance('m1')).toEqual({ first: 3, end: 6 });
    expect(model.toolCallProvenance('c1')).toEqual({ first: 6, end: 8 });
    expect(model.messageProvenance('m2')).toEqual({ first: 9, end: 10 });
  });

  it('an event that closes a chunk lane went into its own item, not the one the synthesised END closed', () => {
    const model = new AguiRunModel();
    model.apply({ type: 'TEXT_MESSAGE_CHUNK', messageId: 'm', delta: 'Hi' }, 0);
    expect(model.apply({ type: 'TOOL_CALL_START', toolCallId: 'c', toolCallName: 'f', parentMessageId: 'm' }, 1)).toEqual({ kind: 'tool-call', id: 'c' });
    expect(model.messageProvenance('m')).toEqual({ first: 0, end: 1 });
    model.apply({ type: 'TOOL_CALL_CHUNK', toolCallId: 'd', toolCallName: 'g', delta: '{}' }, 2);
    expect(model.apply({ type: 'STATE_SNAPSHOT', snapshot: {} }, 3)).toBeUndefined();
    expect(model.toolCallProvenance('d')).toEqual({ first: 2, end: 3 });
  });

  it('REASONING_* make a reasoning message; an encrypted value lands on it; retired THINKING_* read as REASONING_*', () => {
    const run = materializeRun(events('reasoning span'));
    expect(run.messages[0]).toEqual({ id: 'th1', role: 'reasoning', content: 'The user greets me.', encryptedValue: 'opaque-blob' });
    const thinking = materializeRun([
      { type: 'THINKING_START' },
      { type: 'THINKING_TEXT_MESSAGE_START' },
      { type: 'THINKING_TEXT_MESSAGE_CONTENT', delta: 'old ' },
      { type: 'THINKING_TEXT_MESSAGE_CONTENT', delta: 'shape' },
      { type: 'THINKING_TEXT_MESSAGE_END' },
      { type: 'THINKING_END' },
    ]);
    expect(thinking.messages).toEqual([{ id: 'thinking-message-1', role: 'reasoning', content: 'old shape' }]);
  });

  it('state: snapshots replace, deltas patch; a delta with a failing operation applies none of its operations', () => {
    expect(materializeRun(events('text, state snapshot')).state).toEqual({ counter: 1, status: 'working', items: ['a'] });
    expect(materializeRun(events('a STATE_DELTA whose second')).state).toEqual({ a: 1, nested: { b: 3 } });
  });

  it('activity messages: a snapshot creates, replace:false leaves it, a delta patches its content', () => {
    expect(materializeRun(events('activity')).messages).toEqual([{ id: 'act1', role: 'activity', activityType: 'PLAN', content: { steps: ['one', 'two'] } }]);
  });

  it('content for a message nothing started is dropped, as the client drops it, and touches nothing', () => {
    const model = new AguiRunModel();
    expect(model.apply({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'too early' }, 0)).toBeUndefined();
    expect(model.apply({ type: 'TEXT_MESSAGE_START', messageId: 'm' }, 1)).toEqual({ kind: 'message', id: 'm' });
    expect(model.apply({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'Hello' }, 2)).toEqual({ kind: 'message', id: 'm' });
    expect(model.messages).toEqual([{ id: 'm', role: 'assistant', content: 'Hello' }]);
  });

  it('the outcome is the last run\'s: finished, interrupted, cancelled, error (also late), open while a run is going', () => {
    const finished = materializeRun(events('text, state snapshot'));
    expect(finished.outcome).toMatchObject({ status: 'finished', at: 15, event: { result: { ok: true } } });
    expect(materializeRun(events('a run that ends in an interrupt')).outcome.status).toBe('interrupted');
    expect(materializeRun(events('two runs')).outcome).toMatchObject({ status: 'error', event: { code: 'overloaded' } });
    expect(materializeRun([{ type: 'RUN_STARTED' }, { type: 'RUN_FINISHED', outcome: { type: 'cancelled' } }]).outcome.status).toBe('cancelled');
    expect(materializeRun([{ type: 'RUN_FINISHED' }, { type: 'RUN_ERROR', message: 'late' }]).outcome.status).toBe('error');
    expect(materializeRun([{ type: 'RUN_FINISHED' }, { type: 'RUN_STARTED' }]).outcome).toEqual({ status: 'open', at: null });
  });
});
