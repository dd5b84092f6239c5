/**
 * AG-UI runs written for the run-model tests: each a stream the official client accepts (so its
 * result is the reference), covering the events the model folds. `events(threadId, runId)` fits
 * them to the RunAgentInput they answer.
 */
export interface RunScenario {
  name: string;
  events(threadId: string, runId: string): Array<Record<string, unknown>>;
}

const run = (threadId: string, runId: string) => ({ type: 'RUN_STARTED', threadId, runId });
const done = (threadId: string, runId: string, extra: Record<string, unknown> = {}) => ({ type: 'RUN_FINISHED', threadId, runId, ...extra });

export const RUN_SCENARIOS: RunScenario[] = [
  {
    name: 'text, state snapshot and delta, a tool call whose result lands after its assistant message, text after it',
    events: (t, r) => [
      run(t, r),
      { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'Let me ' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'check.' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
      { type: 'STATE_SNAPSHOT', snapshot: { counter: 0, status: 'working' } },
      { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/counter', value: 1 }, { op: 'add', path: '/items', value: ['a'] }] },
      { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'get_weather', parentMessageId: 'm1' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"city":' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '"Paris"}' },
      { type: 'TOOL_CALL_END', toolCallId: 'c1' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm2', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm2', delta: 'Meanwhile…' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm2' },
      { type: 'TOOL_CALL_RESULT', messageId: 'r1', toolCallId: 'c1', content: '{"tempC":21}', role: 'tool' },
      done(t, r, { result: { ok: true } }),
    ],
  },
  {
    name: 'chunks: id-less text continuation, a tool call chunk, a reasoning chunk, each closed by what follows',
    events: (t, r) => [
      run(t, r),
      { type: 'REASONING_MESSAGE_CHUNK', messageId: 'th1', delta: 'Thinking ' },
      { type: 'REASONING_MESSAGE_CHUNK', delta: 'hard.' },
      { type: 'TEXT_MESSAGE_CHUNK', messageId: 'm1', role: 'assistant', delta: 'Hel' },
      { type: 'TEXT_MESSAGE_CHUNK', delta: 'lo' },
      { type: 'TEXT_MESSAGE_CHUNK', messageId: 'm1', delta: '!' },
      { type: 'TOOL_CALL_CHUNK', toolCallId: 'c1', toolCallName: 'search', parentMessageId: 'm1', delta: '{"q":' },
      { type: 'TOOL_CALL_CHUNK', delta: '"x"}' },
      { type: 'STATE_SNAPSHOT', snapshot: { phase: 'chunked' } },
      { type: 'TEXT_MESSAGE_CHUNK', messageId: 'm2', delta: 'Second.' },
      done(t, r),
    ],
  },
  {
    name: 'reasoning span and message, an encrypted value, then the answer',
    events: (t, r) => [
      run(t, r),
      { type: 'REASONING_START', messageId: 'span1' },
      { type: 'REASONING_MESSAGE_START', messageId: 'th1', role: 'reasoning' },
      { type: 'REASONING_MESSAGE_CONTENT', messageId: 'th1', delta: 'The user ' },
      { type: 'REASONING_MESSAGE_CONTENT', messageId: 'th1', delta: 'greets me.' },
      { type: 'REASONING_MESSAGE_END', messageId: 'th1' },
      { type: 'REASONING_END', messageId: 'span1' },
      { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'message', entityId: 'th1', encryptedValue: 'opaque-blob' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'Hi there.' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
      done(t, r),
    ],
  },
  {
    name: 'MESSAGES_SNAPSHOT reconciles by id: replaces in place, drops, appends; streamed reasoning survives it',
    events: (t, r) => [
      run(t, r),
      { type: 'REASONING_MESSAGE_START', messageId: 'th1', role: 'reasoning' },
      { type: 'REASONING_MESSAGE_CONTENT', messageId: 'th1', delta: 'hmm' },
      { type: 'REASONING_MESSAGE_END', messageId: 'th1' },
      { type: 'TEXT_MESSAGE_START', messageId: 'a', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a', delta: 'draft' },
      { type: 'TEXT_MESSAGE_END', messageId: 'a' },
      { type: 'TEXT_MESSAGE_START', messageId: 'b', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'b', delta: 'to be dropped' },
      { type: 'TEXT_MESSAGE_END', messageId: 'b' },
      {
        type: 'MESSAGES_SNAPSHOT',
        messages: [
          { id: 'u1', role: 'user', content: 'Hi' },
          { id: 'a', role: 'assistant', content: 'final', toolCalls: [{ id: 'c9', type: 'function', function: { name: 'lookup', arguments: '{"k":1}' } }] },
          { id: 'r9', role: 'tool', toolCallId: 'c9', content: 'found' },
          { id: 'c', role: 'assistant', content: 'new one' },
        ],
      },
      { type: 'TEXT_MESSAGE_START', messageId: 'a', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a', delta: ' and more' },
      { type: 'TEXT_MESSAGE_END', messageId: 'a' },
      done(t, r),
    ],
  },
  {
    name: 'a MESSAGES_SNAPSHOT in the middle of a streaming message replaces it: the next deltas append to the replacement',
    events: (t, r) => [
      run(t, r),
      { type: 'TEXT_MESSAGE_START', messageId: 'a', role: 'assistant' },
      { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'f', parentMessageId: 'a' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a', delta: 'streamed' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"x":' },
      {
        type: 'MESSAGES_SNAPSHOT',
        messages: [
          { id: 'u1', role: 'user', content: 'Hi' },
          { id: 'a', role: 'assistant', content: 'restated', toolCalls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"x":' } }] },
        ],
      },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '1}' },
      { type: 'TOOL_CALL_END', toolCallId: 'c1' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a', delta: ' and more' },
      { type: 'TEXT_MESSAGE_END', messageId: 'a' },
      done(t, r),
    ],
  },
  {
    name: 'a STATE_DELTA whose second operation fails leaves the state as it was; the next one applies',
    events: (t, r) => [
      run(t, r),
      { type: 'STATE_SNAPSHOT', snapshot: { a: 1, nested: { b: 2 } } },
      { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/a', value: 100 }, { op: 'remove', path: '/missing/x' }] },
      { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/nested/b', value: 3 }] },
      done(t, r),
    ],
  },
  {
    name: 'activity snapshot, a replace:false snapshot that changes nothing, and a delta',
    events: (t, r) => [
      run(t, r),
      { type: 'ACTIVITY_SNAPSHOT', messageId: 'act1', activityType: 'PLAN', content: { steps: ['one'] } },
      { type: 'ACTIVITY_SNAPSHOT', messageId: 'act1', activityType: 'OTHER', content: { steps: [] }, replace: false },
      { type: 'ACTIVITY_DELTA', messageId: 'act1', activityType: 'PLAN', patch: [{ op: 'add', path: '/steps/-', value: 'two' }] },
      done(t, r),
    ],
  },
  {
    name: 'two runs on one stream; tool calls with no parent, with a parent nothing made, and parallel results',
    events: (t, r) => [
      run(t, r),
      { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'one' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{}' },
      { type: 'TOOL_CALL_END', toolCallId: 'c1' },
      { type: 'TOOL_CALL_START', toolCallId: 'c2', toolCallName: 'two', parentMessageId: 'p2' },
      { type: 'TOOL_CALL_START', toolCallId: 'c3', toolCallName: 'three', parentMessageId: 'p2' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c3', delta: '[1,2]' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c2', delta: '"x"' },
      { type: 'TOOL_CALL_END', toolCallId: 'c2' },
      { type: 'TOOL_CALL_END', toolCallId: 'c3' },
      { type: 'TOOL_CALL_RESULT', messageId: 'r3', toolCallId: 'c3', content: 'three done' },
      { type: 'TOOL_CALL_RESULT', messageId: 'r2', toolCallId: 'c2', content: 'two done' },
      done(t, r),
      { ...run(t, `${r}-2`), input: { threadId: t, runId: `${r}-2`, state: {}, tools: [], context: [], forwardedProps: {}, messages: [{ id: 'u1', role: 'user', content: 'Hi' }, { id: 'u2', role: 'user', content: 'And now?' }] } },
      { type: 'TEXT_MESSAGE_START', messageId: 'm9', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm9', delta: 'second run' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm9' },
      { type: 'RUN_ERROR', message: 'model overloaded', code: 'overloaded' },
    ],
  },
  {
    name: 'a cancelled run',
    events: (t, r) => [
      run(t, r),
      { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'Stopping' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
      done(t, r, { outcome: { type: 'cancelled' } }),
    ],
  },
  {
    name: 'a run that ends in an interrupt',
    events: (t, r) => [
      run(t, r),
      { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'May I?' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
      done(t, r, { outcome: { type: 'interrupt', interrupts: [{ id: 'i1', reason: 'approval' }] } }),
    ],
  },
];
