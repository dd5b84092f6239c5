import { describe, expect, it } from 'vitest';
import { RULES } from '../../../src/protocols/agui/rules.js';
import { runStream, type StreamOptions, type StreamResult } from './helpers.js';

// Hand-made streams, one per behavioural rule. Each negative case is built so that the rule under test
// is the ONLY behavioural error it produces (schema findings aside, where the case needs a value the
// schema forbids, such as `subagentRunId: null`), and asserts the rule id, the event and the pointer.

const T = 'thread-1';
const R = 'run-1';
type Ev = Record<string, unknown>;

const runStarted = (runId = R, threadId = T): Ev => ({ type: 'RUN_STARTED', threadId, runId });
const runFinished = (runId = R, threadId = T, extra: Ev = {}): Ev => ({ type: 'RUN_FINISHED', threadId, runId, ...extra });
const runError = (): Ev => ({ type: 'RUN_ERROR', message: 'boom' });
const textStart = (messageId: string, extra: Ev = {}): Ev => ({ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant', ...extra });
const textContent = (messageId: string, extra: Ev = {}): Ev => ({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta: 'hi', ...extra });
const textEnd = (messageId: string, extra: Ev = {}): Ev => ({ type: 'TEXT_MESSAGE_END', messageId, ...extra });
const toolStart = (toolCallId: string, extra: Ev = {}): Ev => ({ type: 'TOOL_CALL_START', toolCallId, toolCallName: 'lookup', ...extra });
const toolArgs = (toolCallId: string, extra: Ev = {}): Ev => ({ type: 'TOOL_CALL_ARGS', toolCallId, delta: '{}', ...extra });
const toolEnd = (toolCallId: string, extra: Ev = {}): Ev => ({ type: 'TOOL_CALL_END', toolCallId, ...extra });
const stepStarted = (stepName: string, extra: Ev = {}): Ev => ({ type: 'STEP_STARTED', stepName, ...extra });
const stepFinished = (stepName: string, extra: Ev = {}): Ev => ({ type: 'STEP_FINISHED', stepName, ...extra });
const subStarted = (subagentRunId: string, extra: Ev = {}): Ev => ({ type: 'SUBAGENT_STARTED', subagentRunId, name: 'helper', ...extra });
const subFinished = (subagentRunId: string, extra: Ev = {}): Ev => ({ type: 'SUBAGENT_FINISHED', subagentRunId, ...extra });
const reasoningStart = (messageId: string): Ev => ({ type: 'REASONING_START', messageId });
const reasoningEnd = (messageId: string): Ev => ({ type: 'REASONING_END', messageId });
const reasoningMsgStart = (messageId: string): Ev => ({ type: 'REASONING_MESSAGE_START', messageId, role: 'reasoning' });
const reasoningMsgContent = (messageId: string): Ev => ({ type: 'REASONING_MESSAGE_CONTENT', messageId, delta: 'hmm' });
const reasoningMsgEnd = (messageId: string): Ev => ({ type: 'REASONING_MESSAGE_END', messageId });
const textChunk = (extra: Ev): Ev => ({ type: 'TEXT_MESSAGE_CHUNK', ...extra });

interface Expected {
  at: number | 'end';
  rule: string;
  pointer: string;
}

function behavioural(result: StreamResult): Expected[] {
  return result.located.filter((f) => f.severity === 'error' && f.rule !== 'schema').map(({ at, rule, pointer }) => ({ at, rule, pointer }));
}

/** The stream produces exactly these behavioural errors (and no warnings). */
function expectOnly(events: Ev[], expected: Expected[], options?: StreamOptions): StreamResult {
  const result = runStream(events, options);
  expect(behavioural(result)).toEqual(expected);
  expect(result.located.filter((f) => f.severity === 'warning')).toEqual([]);
  return result;
}

function expectClean(events: Ev[], options?: StreamOptions): StreamResult {
  const result = runStream(events, options);
  expect(result.located).toEqual([]);
  return result;
}

function messageOf(result: StreamResult, rule: string): string {
  const found = result.located.find((f) => f.rule === rule);
  expect(found, `no ${rule} finding`).toBeDefined();
  return found!.message;
}

describe('lifecycle (L1–L6)', () => {
  it('L1: the first event must be RUN_STARTED', () => {
    const r = expectOnly([stepStarted('s'), runError()], [{ at: 0, rule: RULES.L1, pointer: '/type' }]);
    expect(messageOf(r, RULES.L1)).toBe(`First event must be 'RUN_STARTED'`);
  });

  it('L1 positive: RUN_ERROR may be the first event', () => {
    expectClean([runError()]);
  });

  it('L2: nothing but RUN_STARTED after RUN_ERROR', () => {
    const r = expectOnly([runStarted(), runError(), textStart('m1')], [{ at: 2, rule: RULES.L2, pointer: '/type' }]);
    expect(messageOf(r, RULES.L2)).toContain("The run has already errored with 'RUN_ERROR'");
  });

  it('L2: RUN_FINISHED after RUN_ERROR is rejected', () => {
    expectOnly([runStarted(), runError(), runFinished()], [{ at: 2, rule: RULES.L2, pointer: '/type' }]);
  });

  it('L2 positive: a new run may start after RUN_ERROR', () => {
    expectClean([runStarted(), runError(), runStarted('run-2'), runFinished('run-2')]);
  });

  it('L3: nothing but RUN_STARTED/RUN_ERROR after RUN_FINISHED', () => {
    const r = expectOnly([runStarted(), runFinished(), stepStarted('late')], [{ at: 2, rule: RULES.L3, pointer: '/type' }]);
    expect(messageOf(r, RULES.L3)).toBe(`Cannot send event type 'STEP_STARTED': The run has already finished with 'RUN_FINISHED'. Start a new run with 'RUN_STARTED'.`);
  });

  it('L3 positive: a late RUN_ERROR after RUN_FINISHED is allowed', () => {
    expectClean([runStarted(), runFinished(), runError()]);
  });

  it('L4: no RUN_STARTED while a run is active', () => {
    expectOnly([runStarted(), runStarted('run-2'), runFinished('run-2')], [{ at: 1, rule: RULES.L4, pointer: '/type' }]);
  });

  it('L4 positive: sequential runs on one stream are allowed', () => {
    expectClean([runStarted(), textStart('m'), textEnd('m'), runFinished(), runStarted('run-2'), textStart('m'), textEnd('m'), runFinished('run-2')]);
  });

  it('L5: RUN_FINISHED with an open text message', () => {
    const r = expectOnly([runStarted(), textStart('m1'), runFinished()], [{ at: 2, rule: RULES.L5, pointer: '' }]);
    expect(messageOf(r, RULES.L5)).toBe(`Cannot send 'RUN_FINISHED' while text messages are still active: m1`);
  });

  it('L5: every kind still open is named, steps first, subagent steps labelled', () => {
    const r = runStream([runStarted(), subStarted('s1'), stepStarted('plan', { subagentRunId: 's1' }), toolStart('c1'), runFinished()]);
    expect(behavioural(r)).toEqual([
      { at: 4, rule: RULES.L5, pointer: '' },
      { at: 4, rule: RULES.L5, pointer: '' },
      { at: 4, rule: RULES.L5, pointer: '' },
    ]);
    expect(r.located.map((f) => f.message)).toEqual([
      `Cannot send 'RUN_FINISHED' while steps are still active: plan (subagent 's1')`,
      `Cannot send 'RUN_FINISHED' while tool calls are still active: c1`,
      `Cannot send 'RUN_FINISHED' while subagents are still active: s1`,
    ]);
  });

  it('L6: RUN_ERROR needs nothing closed', () => {
    expectClean([runStarted(), textStart('m1'), toolStart('c1'), stepStarted('s'), runError()]);
  });
});

describe('text messages (T1–T3)', () => {
  it('T1: a second TEXT_MESSAGE_START for an open id', () => {
    const r = expectOnly([runStarted(), textStart('m1'), textStart('m1'), textEnd('m1'), runFinished()], [{ at: 2, rule: RULES.T1, pointer: '/messageId' }]);
    expect(messageOf(r, RULES.T1)).toContain("A text message with ID 'm1' is already in progress");
  });

  it('T1 positive: reopening a closed message is allowed', () => {
    expectClean([runStarted(), textStart('m1'), textContent('m1'), textEnd('m1'), textStart('m1'), textContent('m1'), textEnd('m1'), runFinished()]);
  });

  it('T2: TEXT_MESSAGE_CONTENT for a message that is not open', () => {
    expectOnly([runStarted(), textContent('m1'), runFinished()], [{ at: 1, rule: RULES.T2, pointer: '/messageId' }]);
  });

  it('T3: TEXT_MESSAGE_END for a message that is not open', () => {
    expectOnly([runStarted(), textEnd('m1'), runFinished()], [{ at: 1, rule: RULES.T3, pointer: '/messageId' }]);
  });

  it('positive: messages, tool calls and steps interleave freely', () => {
    expectClean([
      runStarted(),
      textStart('a'),
      stepStarted('s'),
      toolStart('c', { parentMessageId: 'a' }),
      textStart('b'),
      textContent('a'),
      toolArgs('c'),
      textContent('b'),
      textEnd('a'),
      toolEnd('c'),
      stepFinished('s'),
      textEnd('b'),
      runFinished(),
    ]);
  });
});

describe('tool calls (C1–C5)', () => {
  it('C1: a second TOOL_CALL_START for an open id', () => {
    expectOnly([runStarted(), toolStart('c1'), toolStart('c1'), toolEnd('c1'), runFinished()], [{ at: 2, rule: RULES.C1, pointer: '/toolCallId' }]);
  });

  it('C2: TOOL_CALL_ARGS for a call that is not open', () => {
    expectOnly([runStarted(), toolArgs('c1'), runFinished()], [{ at: 1, rule: RULES.C2, pointer: '/toolCallId' }]);
  });

  it('C3: TOOL_CALL_END for a call that is not open', () => {
    expectOnly([runStarted(), toolEnd('c1'), runFinished()], [{ at: 1, rule: RULES.C3, pointer: '/toolCallId' }]);
  });

  it("C4: a tool call's tag must match its parent message's owner", () => {
    const r = expectOnly(
      [runStarted(), subStarted('s1'), textStart('m1'), textEnd('m1'), toolStart('c1', { parentMessageId: 'm1', subagentRunId: 's1' }), toolEnd('c1', { subagentRunId: 's1' }), subFinished('s1'), runFinished()],
      [{ at: 4, rule: RULES.C4, pointer: '/subagentRunId' }],
    );
    expect(messageOf(r, RULES.C4)).toContain("does not match its parent message 'm1' owner '(the parent agent)'");
  });

  it('C5: an untagged reopen under a parent owned by someone else', () => {
    expectOnly(
      [
        runStarted(),
        subStarted('s1'),
        textStart('m1'),
        textEnd('m1'),
        toolStart('c1', { subagentRunId: 's1' }),
        toolEnd('c1', { subagentRunId: 's1' }),
        toolStart('c1', { parentMessageId: 'm1' }),
        toolEnd('c1'),
        subFinished('s1'),
        runFinished(),
      ],
      [{ at: 6, rule: RULES.C5, pointer: '/parentMessageId' }],
    );
  });

  it('positive: a closed tool call may be reopened by its owner', () => {
    expectClean([runStarted(), toolStart('c1'), toolArgs('c1'), toolEnd('c1'), toolStart('c1'), toolArgs('c1'), toolEnd('c1'), runFinished()]);
  });
});

describe('steps (S1–S3)', () => {
  it('S1: a step name already open for the same owner', () => {
    const r = expectOnly([runStarted(), stepStarted('plan'), stepStarted('plan'), stepFinished('plan'), runFinished()], [{ at: 2, rule: RULES.S1, pointer: '/stepName' }]);
    expect(messageOf(r, RULES.S1)).toBe(`Step "plan" is already active for 'STEP_STARTED'`);
  });

  it('S1 positive: the parent and a subagent may share a step name', () => {
    expectClean([
      runStarted(),
      subStarted('s1'),
      stepStarted('plan'),
      stepStarted('plan', { subagentRunId: 's1' }),
      stepFinished('plan', { subagentRunId: 's1' }),
      stepFinished('plan'),
      subFinished('s1'),
      runFinished(),
    ]);
  });

  it('S2: a step must be finished by whoever started it', () => {
    const r = expectOnly(
      [runStarted(), subStarted('s1'), stepStarted('plan'), stepFinished('plan', { subagentRunId: 's1' }), subFinished('s1'), runFinished()],
      [{ at: 3, rule: RULES.S2, pointer: '/subagentRunId' }],
    );
    expect(messageOf(r, RULES.S2)).toContain(`attributed to subagent 's1': that step is open under the parent agent`);
  });

  it('S3: STEP_FINISHED for a step never started', () => {
    expectOnly([runStarted(), stepFinished('plan'), runFinished()], [{ at: 1, rule: RULES.S3, pointer: '/stepName' }]);
  });
});

describe('reasoning (R1–R4)', () => {
  it('R1: a reasoning span opened twice', () => {
    expectOnly([runStarted(), reasoningStart('x'), reasoningStart('x'), reasoningEnd('x'), runFinished()], [{ at: 2, rule: RULES.R1, pointer: '/messageId' }]);
  });

  it('R2: a reasoning message opened twice', () => {
    expectOnly([runStarted(), reasoningMsgStart('x'), reasoningMsgStart('x'), reasoningMsgEnd('x'), runFinished()], [{ at: 2, rule: RULES.R2, pointer: '/messageId' }]);
  });

  it('R1/R2 positive: a span and a message may share an id', () => {
    expectClean([runStarted(), reasoningStart('x'), reasoningMsgStart('x'), reasoningMsgContent('x'), reasoningMsgEnd('x'), reasoningEnd('x'), runFinished()]);
  });

  it('R3: REASONING_END without an open span', () => {
    expectOnly([runStarted(), reasoningEnd('x'), runFinished()], [{ at: 1, rule: RULES.R3, pointer: '/messageId' }]);
  });

  it('R4: REASONING_MESSAGE_CONTENT and _END without an open message', () => {
    const r = expectOnly(
      [runStarted(), reasoningMsgContent('x'), reasoningMsgEnd('x'), runFinished()],
      [
        { at: 1, rule: RULES.R4, pointer: '/messageId' },
        { at: 2, rule: RULES.R4, pointer: '/messageId' },
      ],
    );
    expect(messageOf(r, RULES.R4)).toContain(`Cannot send 'REASONING_MESSAGE_CONTENT' event: No active reasoning message found with ID 'x'`);
  });

  it('L5: RUN_FINISHED with open reasoning message and span', () => {
    const r = runStream([runStarted(), reasoningStart('s'), reasoningMsgStart('m'), runFinished()]);
    expect(r.located.map((f) => f.message)).toEqual([
      `Cannot send 'RUN_FINISHED' while reasoning messages are still active: m`,
      `Cannot send 'RUN_FINISHED' while reasoning spans are still active: s`,
    ]);
  });
});

describe('attribution (O1)', () => {
  it('O1: a continuation tagged with another subagent than its opener', () => {
    const r = expectOnly(
      [runStarted(), subStarted('s1'), textStart('m1', { subagentRunId: 's1' }), textContent('m1', { subagentRunId: 's2' }), textEnd('m1', { subagentRunId: 's1' }), subFinished('s1'), runFinished()],
      [{ at: 3, rule: RULES.O1, pointer: '/subagentRunId' }],
    );
    expect(messageOf(r, RULES.O1)).toBe(`Cannot send 'TEXT_MESSAGE_CONTENT': subagentRunId 's2' does not match the message 'm1' opener's subagent 's1'.`);
  });

  it('O1: a tagged closer of a message the parent agent opened', () => {
    const r = expectOnly([runStarted(), textStart('m1'), textEnd('m1', { subagentRunId: 's9' }), runFinished()], [{ at: 2, rule: RULES.O1, pointer: '/subagentRunId' }]);
    expect(messageOf(r, RULES.O1)).toContain(`opener's subagent '(the parent agent)'`);
  });

  it('O1: REASONING_ENCRYPTED_VALUE picks the owner by subtype', () => {
    expectOnly(
      [runStarted(), toolStart('c1'), toolEnd('c1'), { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'tool-call', entityId: 'c1', encryptedValue: 'opaque', subagentRunId: 's9' }, runFinished()],
      [{ at: 3, rule: RULES.O1, pointer: '/subagentRunId' }],
    );
  });

  it('O1: ACTIVITY_DELTA tagged differently from its snapshot', () => {
    expectOnly(
      [
        runStarted(),
        { type: 'ACTIVITY_SNAPSHOT', messageId: 'a1', activityType: 'search', content: { n: 0 } },
        { type: 'ACTIVITY_DELTA', messageId: 'a1', activityType: 'search', patch: [{ op: 'replace', path: '/n', value: 1 }], subagentRunId: 's9' },
        runFinished(),
      ],
      [{ at: 2, rule: RULES.O1, pointer: '/subagentRunId' }],
    );
  });

  it('O1: owners are seeded (authoritatively) from MESSAGES_SNAPSHOT', () => {
    expectOnly(
      [runStarted(), { type: 'MESSAGES_SNAPSHOT', messages: [{ id: 'm1', role: 'assistant', content: 'x', subagentRunId: 's1' }] }, textStart('m1', { subagentRunId: 's2' }), textEnd('m1'), runFinished()],
      [{ at: 2, rule: RULES.O1, pointer: '/subagentRunId' }],
    );
  });

  it('O1: owners are seeded from RUN_STARTED.input.messages', () => {
    const input = { threadId: T, runId: R, messages: [{ id: 'm1', role: 'assistant', content: 'x', subagentRunId: 's1' }] };
    expectOnly([{ ...runStarted(), input }, textStart('m1', { subagentRunId: 's2' }), textEnd('m1'), runFinished()], [{ at: 1, rule: RULES.O1, pointer: '/subagentRunId' }]);
  });

  it('O1 positive: untagged continuations of a subagent message are accepted', () => {
    expectClean([runStarted(), subStarted('s1'), textStart('m1', { subagentRunId: 's1' }), textContent('m1'), textEnd('m1'), subFinished('s1'), runFinished()]);
  });
});

describe('null tags (N1–N4)', () => {
  it('N1: subagentRunId: null on an event', () => {
    const r = expectOnly([runStarted(), textStart('m1', { subagentRunId: null }), textEnd('m1'), runFinished()], [{ at: 1, rule: RULES.N1, pointer: '/subagentRunId' }]);
    expect(messageOf(r, RULES.N1)).toBe(`Cannot send 'TEXT_MESSAGE_START' with 'subagentRunId: null'. The field is optional — omit it entirely.`);
  });

  it('N1: a null-tagged chunk is reported once, though it expands into START and CONTENT', () => {
    const r = expectOnly([runStarted(), textChunk({ messageId: 'm1', delta: 'x', subagentRunId: null }), runFinished()], [{ at: 1, rule: RULES.N1, pointer: '/subagentRunId' }]);
    expect(messageOf(r, RULES.N1)).toContain("Cannot send 'TEXT_MESSAGE_START' with 'subagentRunId: null'");
  });

  it('N2: a null tag on a message in MESSAGES_SNAPSHOT', () => {
    expectOnly(
      [runStarted(), { type: 'MESSAGES_SNAPSHOT', messages: [{ id: 'm1', role: 'assistant', content: 'x', subagentRunId: null }] }, runFinished()],
      [{ at: 1, rule: RULES.N2, pointer: '/messages/0/subagentRunId' }],
    );
  });

  it('N2: a null tag on a message in the RUN_STARTED input echo', () => {
    const input = { threadId: T, runId: R, messages: [{ id: 'u1', role: 'user', content: 'hi' }, { id: 'm1', role: 'assistant', content: 'x', subagentRunId: null }] };
    expectOnly([{ ...runStarted(), input }, runFinished()], [{ at: 0, rule: RULES.N2, pointer: '/input/messages/1/subagentRunId' }]);
  });

  it('N3: a null optional field on SUBAGENT_STARTED', () => {
    expectOnly([runStarted(), subStarted('s1', { description: null }), subFinished('s1'), runFinished()], [{ at: 1, rule: RULES.N3, pointer: '/description' }]);
  });

  it('N4: a null tag on an interrupt', () => {
    expectOnly(
      [runStarted(), runFinished(R, T, { outcome: { type: 'interrupt', interrupts: [{ id: 'i1', reason: 'approval', subagentRunId: null }] } })],
      [{ at: 1, rule: RULES.N4, pointer: '/outcome/interrupts/0/subagentRunId' }],
    );
  });
});

describe('subagents (A1–A7)', () => {
  it('A1: SUBAGENT_STARTED without a name', () => {
    const r = expectOnly([runStarted(), { type: 'SUBAGENT_STARTED', subagentRunId: 's1' }, runFinished()], [{ at: 1, rule: RULES.A1, pointer: '/name' }]);
    expect(messageOf(r, RULES.A1)).toBe(`Cannot send 'SUBAGENT_STARTED' without a 'name'.`);
  });

  it('A1: SUBAGENT_STARTED without a subagentRunId', () => {
    expectOnly([runStarted(), { type: 'SUBAGENT_STARTED', name: 'helper' }, runFinished()], [{ at: 1, rule: RULES.A1, pointer: '/subagentRunId' }]);
  });

  it('A2: a subagent started twice', () => {
    expectOnly([runStarted(), subStarted('s1'), subStarted('s1'), subFinished('s1'), runFinished()], [{ at: 2, rule: RULES.A2, pointer: '/subagentRunId' }]);
  });

  it('A3: a subagent id reused within a run', () => {
    expectOnly([runStarted(), subStarted('s1'), subFinished('s1'), subStarted('s1'), subFinished('s1'), runFinished()], [{ at: 3, rule: RULES.A3, pointer: '/subagentRunId' }]);
  });

  it('A3 positive: a suspended invocation may continue in a later run', () => {
    expectClean([runStarted(), subStarted('s1'), subFinished('s1', { outcome: { type: 'suspended' } }), runFinished(), runStarted('run-2'), subStarted('s1'), subFinished('s1'), runFinished('run-2')]);
  });

  it('A4: an unknown parentSubagentRunId', () => {
    expectOnly([runStarted(), subStarted('s2', { parentSubagentRunId: 's1' }), subFinished('s2'), runFinished()], [{ at: 1, rule: RULES.A4, pointer: '/parentSubagentRunId' }]);
  });

  it('A4 positive: nested subagents under a started parent', () => {
    expectClean([runStarted(), subStarted('s1'), subStarted('s2', { parentSubagentRunId: 's1' }), subFinished('s2'), subFinished('s1'), runFinished()]);
  });

  it('A5: SUBAGENT_FINISHED without a subagentRunId', () => {
    expectOnly([runStarted(), { type: 'SUBAGENT_FINISHED' }, runFinished()], [{ at: 1, rule: RULES.A5, pointer: '/subagentRunId' }]);
  });

  it('A5: SUBAGENT_ERROR without a message', () => {
    expectOnly(
      [runStarted(), subStarted('s1'), { type: 'SUBAGENT_ERROR', subagentRunId: 's1' }, { type: 'SUBAGENT_ERROR', subagentRunId: 's1', message: 'failed' }, runFinished()],
      [{ at: 2, rule: RULES.A5, pointer: '/message' }],
    );
  });

  it('A6: closing a subagent that is not active', () => {
    expectOnly([runStarted(), subFinished('s1'), runFinished()], [{ at: 1, rule: RULES.A6, pointer: '/subagentRunId' }]);
  });

  it('A7: an outcome type other than success or suspended', () => {
    const r = expectOnly([runStarted(), subStarted('s1'), subFinished('s1', { outcome: { type: 'cancelled' } }), runFinished()], [{ at: 2, rule: RULES.A7, pointer: '/outcome/type' }]);
    expect(messageOf(r, RULES.A7)).toBe(`Cannot send 'SUBAGENT_FINISHED' with outcome type 'cancelled'. The outcome is either { type: "success" } or { type: "suspended" }.`);
  });

  it('A7: null and non-string interruptIds', () => {
    expectOnly(
      [
        runStarted(),
        subStarted('s1'),
        subFinished('s1', { outcome: { type: 'suspended', interruptIds: null } }),
        runFinished(),
        runStarted('run-2'),
        subStarted('s2'),
        subFinished('s2', { outcome: { type: 'suspended', interruptIds: ['i1', 7] } }),
        runFinished('run-2'),
      ],
      [
        { at: 2, rule: RULES.A7, pointer: '/outcome/interruptIds' },
        { at: 6, rule: RULES.A7, pointer: '/outcome/interruptIds/1' },
      ],
    );
  });
});

describe('chunk expansion (§2.3)', () => {
  it('K1: the first TEXT_MESSAGE_CHUNK needs a messageId', () => {
    const r = expectOnly([runStarted(), textChunk({ delta: 'x' }), runFinished()], [{ at: 1, rule: RULES.K1, pointer: '/messageId' }]);
    expect(messageOf(r, RULES.K1)).toBe('First TEXT_MESSAGE_CHUNK must have a messageId');
  });

  it('K1: the first TOOL_CALL_CHUNK needs a toolCallId; REASONING_MESSAGE_CHUNK a messageId', () => {
    expectOnly(
      [runStarted(), { type: 'TOOL_CALL_CHUNK', toolCallName: 'lookup', delta: '{' }, { type: 'REASONING_MESSAGE_CHUNK', delta: 'hm' }, runFinished()],
      [
        { at: 1, rule: RULES.K1, pointer: '/toolCallId' },
        { at: 2, rule: RULES.K1, pointer: '/messageId' },
      ],
    );
  });

  it('K2: the first TOOL_CALL_CHUNK needs a toolCallName', () => {
    expectOnly([runStarted(), { type: 'TOOL_CALL_CHUNK', toolCallId: 'c1', delta: '{' }, runFinished()], [{ at: 1, rule: RULES.K2, pointer: '/toolCallName' }]);
  });

  it('K3: a continuation restating role with another value', () => {
    const r = expectOnly(
      [runStarted(), textChunk({ messageId: 'm1', role: 'assistant', delta: 'a' }), textChunk({ messageId: 'm1', role: 'user', delta: 'b' }), runFinished()],
      [{ at: 2, rule: RULES.K3, pointer: '/role' }],
    );
    expect(messageOf(r, RULES.K3)).toBe(`Cannot continue text message 'm1': chunk role 'user' does not match the open stream's role 'assistant'.`);
  });

  it('K3: a tool call continuation restating toolCallName with another value', () => {
    expectOnly(
      [runStarted(), { type: 'TOOL_CALL_CHUNK', toolCallId: 'c1', toolCallName: 'a', delta: '{' }, { type: 'TOOL_CALL_CHUNK', toolCallId: 'c1', toolCallName: 'b', delta: '}' }, runFinished()],
      [{ at: 2, rule: RULES.K3, pointer: '/toolCallName' }],
    );
  });

  it("K4: a chunk tagged with another subagent than its lane's", () => {
    expectOnly(
      [
        runStarted(),
        subStarted('s1'),
        textChunk({ messageId: 'm1', delta: 'a', subagentRunId: 's1' }),
        textChunk({ messageId: 'm1', delta: 'b', subagentRunId: 's2' }),
        subFinished('s1'),
        runFinished(),
      ],
      [{ at: 3, rule: RULES.K4, pointer: '/subagentRunId' }],
    );
  });

  it('K5: an untagged, id-less continuation with two candidate lanes', () => {
    const r = expectOnly(
      [
        runStarted(),
        subStarted('s1'),
        subStarted('s2'),
        textChunk({ messageId: 'm1', delta: 'a', subagentRunId: 's1' }),
        textChunk({ messageId: 'm2', delta: 'b', subagentRunId: 's2' }),
        textChunk({ delta: 'c' }),
        subFinished('s1'),
        subFinished('s2'),
        runFinished(),
      ],
      [{ at: 5, rule: RULES.K5, pointer: '' }],
    );
    expect(messageOf(r, RULES.K5)).toContain('Ambiguous TEXT_MESSAGE_CHUNK');
  });

  it('a synthesised START is verified like a wire one: a chunk for an explicitly open message is T1', () => {
    const r = expectOnly([runStarted(), textStart('m1'), textChunk({ messageId: 'm1', delta: 'x' }), runFinished()], [{ at: 2, rule: RULES.T1, pointer: '/messageId' }]);
    expect(messageOf(r, RULES.T1)).toContain('expanded from this TEXT_MESSAGE_CHUNK');
  });

  it('a chunk after RUN_FINISHED is one L3 finding, though it expands into two events', () => {
    // ...and leaves no open item behind for the next run's RUN_STARTED to close.
    expectOnly([runStarted(), runFinished(), textChunk({ messageId: 'm1', delta: 'x' }), runStarted('run-2'), runFinished('run-2')], [{ at: 2, rule: RULES.L3, pointer: '/type' }]);
  });

  it('positive: a chunk with a new id closes the previous item, and RUN_FINISHED closes the last', () => {
    expectClean([runStarted(), textChunk({ messageId: 'm1', delta: 'a' }), textChunk({ delta: 'b' }), textChunk({ messageId: 'm2', delta: 'c' }), runFinished()]);
  });

  it('positive: a step event in the lane closes the open chunk stream (its END is synthesised first)', () => {
    expectClean([runStarted(), { type: 'TOOL_CALL_CHUNK', toolCallId: 'c1', toolCallName: 'f', delta: '{}' }, stepStarted('s'), stepFinished('s'), runFinished()]);
  });

  it('positive: RAW and ACTIVITY events do not close the chunk stream', () => {
    expectClean([
      runStarted(),
      textChunk({ messageId: 'm1', delta: 'a' }),
      { type: 'RAW', event: { x: 1 } },
      { type: 'ACTIVITY_SNAPSHOT', messageId: 'a1', activityType: 't', content: {} },
      textChunk({ delta: 'b' }),
      runFinished(),
    ]);
  });

  it('an explicit END after a chunk stream: the chunk stream was closed by it, so it ends nothing (T3)', () => {
    // The END closes the lane first (synthesised END m1), then the wire END finds nothing open.
    expectOnly([runStarted(), textChunk({ messageId: 'm1', delta: 'a' }), textEnd('m1'), runFinished()], [{ at: 2, rule: RULES.T3, pointer: '/messageId' }]);
  });
});

describe('draft run agreement and truncation', () => {
  const request = { threadId: T, runId: R, messages: [] };

  it('D1: RUN_FINISHED must close the run RUN_STARTED opened', () => {
    const r = expectOnly([runStarted(), runFinished('run-other')], [{ at: 1, rule: RULES.D1, pointer: '/runId' }]);
    expect(messageOf(r, RULES.D1)).toContain('must agree on their runId');
  });

  it('D1: each run of a multi-run stream is matched against its own RUN_STARTED', () => {
    expectOnly([runStarted(), runFinished(), runStarted('run-2'), runFinished(R)], [{ at: 3, rule: RULES.D1, pointer: '/runId' }]);
  });

  it('D2: RUN_FINISHED must be on the thread its RUN_STARTED is on', () => {
    expectOnly([runStarted(), runFinished(R, 'thread-other')], [{ at: 1, rule: RULES.D2, pointer: '/threadId' }]);
  });

  it("D3: a run on another thread than the request's", () => {
    expectOnly([runStarted(R, 'thread-other'), runFinished(R, 'thread-other')], [{ at: 0, rule: RULES.D3, pointer: '/threadId' }], { requestBody: request });
  });

  it("D3: without a request, a later run on another thread than the stream's first", () => {
    expectOnly([runStarted(), runFinished(), runStarted('run-2', 'thread-2'), runFinished('run-2', 'thread-2')], [{ at: 2, rule: RULES.D3, pointer: '/threadId' }]);
  });

  it("D4: the first run must carry the request's runId", () => {
    expectOnly([runStarted('run-x'), runFinished('run-x')], [{ at: 0, rule: RULES.D4, pointer: '/runId' }], { requestBody: request });
  });

  it("D3/D4 positive: later runs may have their own runId; all carry the request's threadId", () => {
    expectClean([runStarted(), runFinished(), runStarted('run-2'), runFinished('run-2')], { requestBody: request });
  });

  it('D5: duplicate interrupt ids in one RUN_FINISHED', () => {
    const interrupts = [
      { id: 'i1', reason: 'approval' },
      { id: 'i2', reason: 'approval' },
      { id: 'i1', reason: 'input' },
    ];
    expectOnly([runStarted(), runFinished(R, T, { outcome: { type: 'interrupt', interrupts } })], [{ at: 1, rule: RULES.D5, pointer: '/outcome/interrupts/2/id' }]);
  });

  it('D6: a run without a terminal event is truncated', () => {
    const r = expectOnly([runStarted(), textStart('m1'), textContent('m1')], [{ at: 'end', rule: RULES.D6, pointer: '' }]);
    expect(r.endFindings[0].message).toContain("run 'run-1' was started but no RUN_FINISHED or RUN_ERROR closed it");
    expect(r.verdicts.every((v) => v.status === 'valid')).toBe(true);
  });

  it('D6: an aborted stream is truncated too', () => {
    const r = expectOnly([runStarted()], [{ at: 'end', rule: RULES.D6, pointer: '' }], { how: 'aborted' });
    expect(r.endFindings[0].message).toContain('was aborted');
  });

  it('D6: the second run of a stream left open', () => {
    expectOnly([runStarted(), runFinished(), runStarted('run-2')], [{ at: 'end', rule: RULES.D6, pointer: '' }]);
  });

  it('D6: an empty stream answering a RunAgentInput is truncated', () => {
    const r = expectOnly([], [{ at: 'end', rule: RULES.D6, pointer: '' }], { requestBody: request });
    expect(r.endFindings[0].message).toContain('without any event');
  });

  it('D6 positive: an empty stream with no known request has nothing to judge', () => {
    expectClean([]);
  });

  it('D6 positive: a run that errored is not truncated', () => {
    expectClean([runStarted(), textStart('m1'), runError()], { requestBody: request });
  });
});

describe('state and activity application (§2.5)', () => {
  it('P1: an unappliable STATE_DELTA warns, points at the failing operation and keeps the state', () => {
    const r = runStream(
      [runStarted(), { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/a', value: 1 }, { op: 'remove', path: '/missing' }] }, runFinished()],
      { requestBody: { threadId: T, runId: R, messages: [], state: { keep: true } } },
    );
    expect(r.located.map(({ at, rule, severity, pointer }) => ({ at, rule, severity, pointer }))).toEqual([{ at: 1, rule: RULES.P1, severity: 'warning', pointer: '/delta/1' }]);
    expect(r.verdicts[1].status).toBe('valid');
  });

  it("P1 positive: the baseline is the request's state", () => {
    expectClean([runStarted(), { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/count', value: 2 }] }, runFinished()], {
      requestBody: { threadId: T, runId: R, messages: [], state: { count: 1 } },
    });
  });

  it('P1: without a request the baseline is {}, so replacing a member fails', () => {
    const r = runStream([runStarted(), { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/count', value: 2 }] }, runFinished()]);
    expect(r.located.map((f) => [f.rule, f.pointer])).toEqual([[RULES.P1, '/delta/0']]);
  });

  it('P1 positive: STATE_SNAPSHOT replaces the state the next delta applies to', () => {
    expectClean([runStarted(), { type: 'STATE_SNAPSHOT', snapshot: { list: [] } }, { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/list/-', value: 'x' }] }, runFinished()]);
  });

  it('P2: an unappliable ACTIVITY_DELTA warns', () => {
    const r = runStream([
      runStarted(),
      { type: 'ACTIVITY_SNAPSHOT', messageId: 'a1', activityType: 'search', content: { found: 0 } },
      { type: 'ACTIVITY_DELTA', messageId: 'a1', activityType: 'search', patch: [{ op: 'test', path: '/found', value: 5 }] },
      runFinished(),
    ]);
    expect(r.located.map(({ at, rule, severity, pointer }) => ({ at, rule, severity, pointer }))).toEqual([{ at: 2, rule: RULES.P2, severity: 'warning', pointer: '/patch/0' }]);
  });

  it('P3: ACTIVITY_DELTA for an activity never snapshotted warns', () => {
    const r = runStream([runStarted(), { type: 'ACTIVITY_DELTA', messageId: 'a9', activityType: 'search', patch: [] }, runFinished()]);
    expect(r.located.map(({ at, rule, severity, pointer }) => ({ at, rule, severity, pointer }))).toEqual([{ at: 1, rule: RULES.P3, severity: 'warning', pointer: '/messageId' }]);
  });

  it('P3 positive: an activity carried by MESSAGES_SNAPSHOT can be patched', () => {
    expectClean([
      runStarted(),
      { type: 'MESSAGES_SNAPSHOT', messages: [{ id: 'a1', role: 'activity', activityType: 'search', content: { found: 0 } }] },
      { type: 'ACTIVITY_DELTA', messageId: 'a1', activityType: 'search', patch: [{ op: 'replace', path: '/found', value: 1 }] },
      runFinished(),
    ]);
  });

  it('events rejected as outside any run are not applied', () => {
    // After RUN_FINISHED the delta is L3 and is not applied, so no patch warning joins the error.
    expectOnly([runStarted(), runFinished(), { type: 'STATE_DELTA', delta: [{ op: 'remove', path: '/nothing' }] }], [{ at: 2, rule: RULES.L3, pointer: '/type' }]);
  });
});

describe('tool call results (P4)', () => {
  const toolResult = (toolCallId: string, messageId = 'r1'): Ev => ({ type: 'TOOL_CALL_RESULT', messageId, toolCallId, content: 'done', role: 'tool' });
  const assistantCalling = (id: string): Ev => ({ id: 'a1', role: 'assistant', toolCalls: [{ id, type: 'function', function: { name: 'lookup', arguments: '{}' } }] });
  const located = (r: StreamResult) => r.located.map(({ at, rule, severity, pointer }) => ({ at, rule, severity, pointer }));

  it('P4: a result for a call never started on the stream nor carried by the input warns', () => {
    const r = runStream([runStarted(), toolResult('c9'), runFinished()], { requestBody: { threadId: T, runId: R, messages: [assistantCalling('c1')] } });
    expect(located(r)).toEqual([{ at: 1, rule: RULES.P4, severity: 'warning', pointer: '/toolCallId' }]);
    expect(messageOf(r, RULES.P4)).toContain("tool call 'c9'");
    // A warning: the official client accepts the run.
    expect(r.verdicts[1].status).toBe('valid');
  });

  it('P4 positive: a result for a call started on the stream', () => {
    expectClean([runStarted(), toolStart('c1'), toolArgs('c1'), toolEnd('c1'), toolResult('c1'), runFinished()]);
  });

  it('P4 positive: a result for a call started by a TOOL_CALL_CHUNK', () => {
    expectClean([runStarted(), { type: 'TOOL_CALL_CHUNK', toolCallId: 'c1', toolCallName: 'lookup', delta: '{}' }, toolResult('c1'), runFinished()]);
  });

  it("P4 positive: a result for a call an assistant message of the RunAgentInput carries", () => {
    expectClean([runStarted(), toolResult('c1'), runFinished()], { requestBody: { threadId: T, runId: R, messages: [assistantCalling('c1')] } });
  });

  it('P4 positive: a result for a call carried by RUN_STARTED.input or a MESSAGES_SNAPSHOT', () => {
    expectClean([{ ...runStarted(), input: { threadId: T, runId: R, messages: [assistantCalling('c1')] } }, toolResult('c1'), runFinished()]);
    expectClean([runStarted(), { type: 'MESSAGES_SNAPSHOT', messages: [assistantCalling('c2')] }, toolResult('c2'), runFinished()]);
  });

  it("P4 positive: a later run on the same stream may answer an earlier run's call", () => {
    expectClean([runStarted(), toolStart('c1'), toolEnd('c1'), runFinished(), runStarted('run-2'), toolResult('c1'), runFinished('run-2')]);
  });
});
