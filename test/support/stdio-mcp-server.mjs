#!/usr/bin/env node
/**
 * A stand-in MCP server over stdio (newline-delimited JSON-RPC on stdin/stdout), written here so that
 * each of MCP's rules can be broken on purpose, deterministically. It declares the `tools` and
 * `logging` capabilities and the tools `echo`, which reports progress 1/2 and 2/2 when the call
 * carries a progress token, `weather`, whose result's structuredContent breaks its outputSchema for the
 * city `Nowhere`, and `break` (below). A call to another tool is answered -32602; anything else it is
 * asked, -32601.
 *
 * `tools/call` of the tool `break`, with `arguments.rule`, makes it break that rule in its answer:
 * progress-not-increasing, progress-after-response, progress-unknown-token, capability (a
 * sampling/createMessage the client did not declare), wrong-direction (it calls tools/list itself),
 * id-reused, null-id, cancel-unknown, result-and-error, duplicate-response, unknown-response, schema
 * (a CallToolResult without content). Requests it sends wait for the client's answer.
 *
 * Environment: MCP_STANDIN_BREAK, comma-separated, breaks the session: `stdout-log` writes two log
 * lines on stdout at start, one of text and one of JSON; `unusable-schema` lists one more tool, `fetcher`,
 * whose inputSchema refers to a remote document; `early-request` sends roots/list right after its InitializeResult, before the
 * client's notifications/initialized.
 *
 * A 2026-07-28 `subscriptions/listen` (its subscription named on each message by the listen's id, as
 * stdio's subscriptions share the channel) is acknowledged with the filter it asked for, then gets
 * one `notifications/tools/list_changed` if it asked for toolsListChanged and one
 * `prompts/list_changed` if it asked for promptsListChanged, and stays open. Its id says what else its
 * stream does, by the words it holds: `unacked` no acknowledgment; `anonymous` its notifications
 * without the subscription's id; `unasked` a `resources/list_changed` it did not ask for; `stray` a
 * notification naming a subscription never opened; `teardown` the server ends it
 * (`notifications/cancelled` naming the listen); `result` it ends with its result; `late` one more
 * notification after the client cancels it (one that crossed the cancellation).
 *
 * MCP_STANDIN_CHANGE, comma-separated, is the same server changed, for `diff --semantic`: `echo-number`
 * declares echo's `message` a number, `add-tool` lists a second tool `shout`, `echo-upper` answers echo
 * in capitals.
 */
const BREAKS = new Set((process.env.MCP_STANDIN_BREAK ?? '').split(',').filter(Boolean));
const CAPABILITIES = { tools: {}, logging: {} };
const CHANGES = new Set((process.env.MCP_STANDIN_CHANGE ?? '').split(',').filter(Boolean));
const MESSAGE_TYPE = CHANGES.has('echo-number') ? 'number' : 'string';
const ECHO = { name: 'echo', description: 'Echoes its message', inputSchema: { type: 'object', properties: { message: { type: MESSAGE_TYPE } }, required: ['message'] } };
const SHOUT = { name: 'shout', description: 'Shouts its message', inputSchema: { type: 'object', properties: { message: { type: 'string' } } } };
const echoed = (message) => (CHANGES.has('echo-upper') ? String(message).toUpperCase() : String(message));
const WEATHER = {
  name: 'weather',
  description: 'The temperature in a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  outputSchema: { type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'] },
};
const BREAK = { name: 'break', description: 'Breaks the rule it is given', inputSchema: { type: 'object', properties: { rule: { type: 'string' } } } };
const FETCHER = { name: 'fetcher', inputSchema: { type: 'object', properties: { url: { $ref: 'https://example.com/schemas/url.json' } } } };

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const result = (id, value) => send({ jsonrpc: '2.0', id, result: value });
const text = (t) => ({ content: [{ type: 'text', text: t }] });
const progress = (token, value) => send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: value, total: 2 } });

/** Answers to the requests this server sent, by id: each resolves the wait for it. */
const waiting = new Map();
let nextId = 0;
function request(method, params, id = `srv-${nextId++}`) {
  send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
  return new Promise((resolve) => waiting.set(JSON.stringify(id), resolve));
}

async function breakRule(id, rule, token) {
  switch (rule) {
    case 'progress-not-increasing':
      progress(token, 2);
      progress(token, 2);
      return result(id, text('done'));
    case 'progress-after-response':
      result(id, text('done'));
      return progress(token, 1);
    case 'progress-unknown-token':
      progress('stand-in-token', 1);
      return result(id, text('done'));
    case 'capability':
      await request('sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'hi?' } }], maxTokens: 5 });
      return result(id, text('done'));
    case 'wrong-direction':
      await request('tools/list');
      return result(id, text('done'));
    case 'id-reused':
      await request('ping', undefined, 'srv-dup');
      await request('ping', undefined, 'srv-dup');
      return result(id, text('done'));
    case 'null-id':
      await request('ping', undefined, null);
      return result(id, text('done'));
    case 'cancel-unknown':
      send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'never-sent' } });
      return result(id, text('done'));
    case 'result-and-error':
      return send({ jsonrpc: '2.0', id, result: text('done'), error: { code: -32603, message: 'and failed' } });
    case 'duplicate-response':
      result(id, text('done'));
      return result(id, text('again'));
    case 'unknown-response':
      result(id, text('done'));
      return result('nobody-asked', {});
    case 'schema':
      return result(id, { isError: false });
    default:
      return send({ jsonrpc: '2.0', id, error: { code: -32602, message: `no rule ${rule}` } });
  }
}

function listen(id, params) {
  const words = String(id);
  const filter = params.notifications ?? {};
  const named = { _meta: { 'io.modelcontextprotocol/subscriptionId': id } };
  const notify = (method) => send({ jsonrpc: '2.0', method, params: words.includes('anonymous') ? {} : named });
  if (!words.includes('unacked')) send({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { ...named, notifications: filter } });
  if (filter.toolsListChanged) notify('notifications/tools/list_changed');
  if (filter.promptsListChanged) notify('notifications/prompts/list_changed');
  if (words.includes('unasked')) notify('notifications/resources/list_changed');
  if (words.includes('stray')) send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'never-opened' } } });
  if (words.includes('teardown')) send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'shutting down' } });
  if (words.includes('result')) result(id, { resultType: 'complete', ...named });
}

/** The client cancelled its request `id`: a `late` listen still sends one notification (it crossed the cancellation). */
function cancelled(id) {
  if (String(id).includes('late')) send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': id } } });
}

async function answer(message) {
  const { id, method, params = {} } = message;
  const token = params._meta?.progressToken;
  switch (method) {
    case 'initialize':
      result(id, { protocolVersion: params.protocolVersion ?? '2025-11-25', capabilities: CAPABILITIES, serverInfo: { name: 'stand-in', version: '1.0.0' } });
      if (BREAKS.has('early-request')) await request('roots/list');
      return;
    case 'ping':
      return result(id, {});
    case 'subscriptions/listen':
      return listen(id, params);
    case 'tools/list':
      return result(id, { tools: [ECHO, WEATHER, BREAK, ...(CHANGES.has('add-tool') ? [SHOUT] : []), ...(BREAKS.has('unusable-schema') ? [FETCHER] : [])] });
    case 'tools/call':
      if (params.name === 'break') return breakRule(id, params.arguments?.rule, token);
      if (params.name === 'weather') {
        const celsius = params.arguments?.city === 'Nowhere' ? 'unknown' : 21;
        return result(id, { content: [{ type: 'text', text: JSON.stringify({ celsius }) }], structuredContent: { celsius } });
      }
      if (params.name !== 'echo') return send({ jsonrpc: '2.0', id, error: { code: -32602, message: `Unknown tool: ${params.name}` } });
      if (token !== undefined) {
        progress(token, 1);
        progress(token, 2);
      }
      return result(id, text(`Echo: ${echoed(params.arguments?.message)}`));
    default:
      return send({ jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } });
  }
}

if (BREAKS.has('stdout-log')) {
  process.stdout.write('stand-in MCP server listening on stdio\n');
  process.stdout.write(`${JSON.stringify({ level: 'info', msg: 'ready' })}\n`);
}

let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  let end;
  while ((end = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, end);
    buffered = buffered.slice(end + 1);
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof message.method === 'string' && message.id !== undefined) void answer(message);
    else if (message.method === 'notifications/cancelled') cancelled(message.params?.requestId);
    else if (typeof message.method !== 'string') waiting.get(JSON.stringify(message.id))?.(message);
  }
});
process.stdin.on('end', () => process.exit(0));
