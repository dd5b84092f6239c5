#!/usr/bin/env node
/**
 * A stand-in for `pi --mode rpc`: reads Pi RPC commands as strict LF-framed JSONL on stdin and
 * answers each the way Pi does (a response with the command's id, and for `prompt` the events of
 * one text turn on the loopback mock model), from the scenario written below.
 *
 * Environment: STANDIN_STDERR=<text> writes that line to stderr at start; STANDIN_EXIT=<n> exits
 * with n when stdin ends (default 0). SIGTERM/SIGINT end it by the default signal action.
 */
const MODEL = 'mock-model';
const REPLY = ['Hello ', 'from ', 'the ', 'mock ', 'model.'];
const AT = Date.parse('2026-01-15T09:00:00.000Z');
const usage = (input, output) => ({ input, output, cacheRead: 0, cacheWrite: 0, ...(input + output > 0 ? { reasoning: 0 } : {}), totalTokens: input + output, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } });
const assistant = (text, tokens) => ({
  role: 'assistant',
  content: text === undefined ? [] : [{ type: 'text', text }],
  api: 'openai-completions',
  provider: 'mock',
  model: MODEL,
  usage: tokens ? usage(12, REPLY.length) : usage(0, 0),
  stopReason: 'stop',
  timestamp: AT + 5,
  responseId: 'chatcmpl-1',
});
const FULL = REPLY.join('');

/** The events of one text turn: 16 lines after the prompt's response. */
function textTurn(userText) {
  const user = { role: 'user', content: [{ type: 'text', text: userText }], timestamp: AT };
  const final = assistant(FULL, true);
  const events = [{ type: 'agent_start' }, { type: 'turn_start' }, { type: 'message_start', message: user }, { type: 'message_end', message: user }];
  events.push({ type: 'message_start', message: assistant(undefined, false) });
  events.push({ type: 'message_update', assistantMessageEvent: { type: 'text_start', contentIndex: 0, partial: assistant(REPLY[0], false) } });
  let sofar = '';
  for (const delta of REPLY) {
    sofar += delta;
    events.push({ type: 'message_update', assistantMessageEvent: { type: 'text_delta', contentIndex: 0, delta, partial: assistant(sofar, false) } });
  }
  events.push({ type: 'message_update', assistantMessageEvent: { type: 'text_end', contentIndex: 0, content: FULL, partial: final } });
  events.push({ type: 'message_end', message: final }, { type: 'turn_end', message: final, toolResults: [] });
  events.push({ type: 'agent_end', messages: [user, final], willRetry: false }, { type: 'agent_settled' });
  return events;
}

const state = {
  model: { id: MODEL, name: 'Mock Model', api: 'openai-completions', provider: 'mock', baseUrl: 'http://127.0.0.1:9/v1', reasoning: false, input: ['text'], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 16384, maxTokens: 1024 },
  thinkingLevel: 'off',
  isStreaming: false,
  isCompacting: false,
  steeringMode: 'one-at-a-time',
  followUpMode: 'one-at-a-time',
  sessionId: '00000000-0000-4000-8000-0000000000b1',
  autoCompactionEnabled: true,
  messageCount: 0,
  pendingMessageCount: 0,
};

/** command type → its answer: the response's fields (and, for prompt, the events that follow it). */
const answers = {
  get_state: () => ({ success: true, data: state }),
  // Always the same turn, whatever the prompt says: tests that change only the prompt see one change.
  prompt: (c) => standInTurn(c.message) ?? { success: true, events: textTurn('Say hello') },
  get_last_assistant_text: () => ({ success: true, data: { text: FULL } }),
  get_entries: () => ({
    success: true,
    data: {
      entries: [
        { type: 'model_change', id: 'a0000001', parentId: null, timestamp: new Date(AT).toISOString(), provider: 'mock', modelId: MODEL },
        { type: 'message', id: 'a0000002', parentId: 'a0000001', timestamp: new Date(AT + 5).toISOString(), message: assistant(FULL, true) },
      ],
      leafId: 'a0000002',
    },
  }),
  get_session_stats: () => ({ success: true, data: { sessionId: state.sessionId, userMessages: 1, assistantMessages: 1, toolCalls: 0, toolResults: 0, totalMessages: 2, tokens: { input: 12, output: 5, cacheRead: 0, cacheWrite: 0, total: 17 }, cost: 0 } }),
  set_model: (c) => ({ success: false, error: `Model not found: ${c.provider}/${c.modelId}` }),
  set_thinking_level: () => ({ success: true }),
  get_available_thinking_levels: () => ({ success: true, data: { levels: ['off'] } }),
  get_commands: () => ({ success: true, data: { commands: [{ name: 'greet', description: 'Say hello', source: 'extension' }] } }),
};

/**
 * Prompts the stand-in answers unlike Pi: `STANDIN_FLOOD <n> <bytes>` streams n numbered text deltas of
 * that many bytes, then settles; `STANDIN_DIE <code>` sends one event after its response and exits
 * with that code mid-turn, as an agent that crashes.
 */
function standInTurn(message) {
  const [word, first, second] = String(message).split(' ');
  if (word === 'STANDIN_FLOOD') {
    const padding = 'x'.repeat(Number(second));
    const deltas = Array.from({ length: Number(first) }, (_, i) => ({ type: 'message_update', assistantMessageEvent: { type: 'text_delta', contentIndex: 0, delta: `${i}:${padding}` } }));
    return { success: true, events: [{ type: 'agent_start' }, ...deltas, { type: 'agent_settled' }] };
  }
  if (word === 'STANDIN_DIE') return { success: true, events: [{ type: 'agent_start' }], exit: Number(first) };
  return undefined;
}

if (process.env.STANDIN_STDERR) process.stderr.write(process.env.STANDIN_STDERR + '\n');

function send(value) {
  process.stdout.write(JSON.stringify(value) + '\n');
}

function handle(text) {
  let command;
  try {
    command = JSON.parse(text);
  } catch (error) {
    send({ type: 'response', command: 'parse', success: false, error: `Failed to parse command: ${error.message}` });
    return;
  }
  const answer = typeof command?.type === 'string' && Object.hasOwn(answers, command.type) ? answers[command.type](command) : undefined;
  if (!answer) {
    send({ ...(command?.id !== undefined ? { id: command.id } : {}), type: 'response', command: command?.type ?? 'unknown', success: false, error: `Unknown command: ${command?.type}` });
    return;
  }
  const { events = [], exit, ...fields } = answer;
  send({ ...(command.id !== undefined ? { id: command.id } : {}), type: 'response', command: command.type, ...fields });
  for (const event of events) send(event);
  // Writes to a pipe are synchronous here, so everything sent is out before the exit.
  if (exit !== undefined) process.exit(exit);
}

let pending = Buffer.alloc(0);
process.stdin.on('data', (chunk) => {
  pending = Buffer.concat([pending, chunk]);
  for (let at = pending.indexOf(10); at >= 0; at = pending.indexOf(10)) {
    let line = pending.subarray(0, at);
    pending = pending.subarray(at + 1);
    if (line.at(-1) === 13) line = line.subarray(0, line.length - 1);
    handle(line.toString('utf8'));
  }
});
process.stdin.on('end', () => {
  process.exitCode = Number(process.env.STANDIN_EXIT ?? 0);
});
