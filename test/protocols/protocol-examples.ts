/**
 * A small, well-formed example of every protocol in PROTOCOLS, for the contract suite
 * (protocol.contract.test.ts): channels the protocol must claim, and one conversation in order. Each
 * is built from the repository's own stand-ins (the stand-in Pi daemon's scenario, the NDJSON
 * daemon's script, the AG-UI fixture streams), never from ../shared.
 *
 * Typed as a Record over ProtocolId, so a new protocol id without examples fails the type-check;
 * the suite also fails at run time for a module in PROTOCOLS that has none.
 */
import { readFileSync } from 'node:fs';
import type { InboundMessage, Sender } from '../../src/core/message.js';
import type { ChannelHint } from '../../src/protocols/protocol.js';
import type { ProtocolId } from '../../src/protocols/catalog.js';
import { ndjsonConversation } from '../support/ndjson-daemon.js';
import { piScenario } from '../support/pi-daemon/scenario.js';
import { ACP_PROTOCOL, FRAMED_PROTOCOL, RAW_PROTOCOL } from '../support/pi-daemon/rpc.js';
import { requestMessage, responseMessage } from './pi-rest/pi-rest-helpers.js';
import { restExchanges } from './pi-rest/rest-exchanges.js';
import { chatChunks, chatReply, STANDIN_MODEL, WEATHER_TOOL } from '../support/openai-scenario.js';

type Json = Record<string, unknown>;

export interface ProtocolExamples {
  /** Channels this protocol must claim: classifyChannel picks it for each. */
  channels: ChannelHint[];
  /** One well-formed conversation, in order: every message judged valid, no error at its end. */
  conversation: InboundMessage[];
  /** Lone messages (from the conversation) that sniffMessage must attribute to this protocol. */
  lone: unknown[];
}

const framed = (carrier: InboundMessage['carrier']) => (sender: Sender, value: unknown): InboundMessage => ({ sender, carrier, value, text: JSON.stringify(value) });

function agui(): ProtocolExamples {
  const events = JSON.parse(readFileSync(new URL('../fixtures/agui/text-message-run.json', import.meta.url), 'utf8')) as Json[];
  const runInput = { threadId: 't-text', runId: 'r-text', state: {}, messages: [{ id: 'u-1', role: 'user', content: 'Hello?' }], tools: [], context: [], forwardedProps: {} };
  const event = framed('event');
  return {
    channels: [
      { transport: 'sse', method: 'POST', path: '/agent', contentType: 'text/event-stream', requestBody: runInput },
      { transport: 'proto', method: 'POST', path: '/agent', contentType: 'application/vnd.ag-ui.event+proto' },
    ],
    conversation: [framed('body')('client', runInput), ...events.map((e) => event('server', e))],
    lone: [runInput, events[0], events[1]],
  };
}

function piRest(): ProtocolExamples {
  // Two reads of one session, revision 1 then 3: read backwards, the revision goes down.
  const wanted = new Set(['capabilities', 'session.create', 'session.get', 'session.get.after-update']);
  const conversation: InboundMessage[] = [];
  for (const x of restExchanges().filter((e) => wanted.has(e.label))) {
    if (x.request.body !== undefined) conversation.push(requestMessage(x.request.method, x.request.path, x.request.headers, x.request.body));
    conversation.push(responseMessage(x.request.method, x.request.path, x.request.headers, x.response.status, x.response.body, x.response.headers));
  }
  return {
    channels: [
      { transport: 'http', method: 'GET', path: '/v1/capabilities' },
      { transport: 'http', method: 'POST', path: '/v1/session', contentType: 'application/json' },
    ],
    conversation,
    lone: conversation.map((m) => m.value),
  };
}

/** get_state, then a prompt and the text turn's raw Pi events, as the stand-in agent answers them. */
function piRpcTurn(): Array<[Sender, Json]> {
  const scenario = piScenario();
  return [
    ['client', { id: 'c-1', type: 'get_state' }],
    ['server', { id: 'c-1', type: 'response', command: 'get_state', success: true, data: scenario.rpcState }],
    ['client', { id: 'c-2', type: 'prompt', message: scenario.textTurnUserText }],
    ['server', { id: 'c-2', type: 'response', command: 'prompt', success: true }],
    ...scenario.textTurnEvents.map((e): [Sender, Json] => ['server', e]),
  ];
}

function piRpc(): ProtocolExamples {
  const turn = piRpcTurn();
  const line = framed('line');
  return {
    channels: [{ transport: 'ws', path: '/v1/session/agent-a/rpc', subprotocol: RAW_PROTOCOL }],
    conversation: turn.map(([sender, value]) => line(sender, value)),
    lone: [turn[0][1], turn[1][1]],
  };
}

function piDaemonRpc(): ProtocolExamples {
  const scenario = piScenario();
  const ready = scenario.attachReady;
  const frame = framed('frame');
  const cursor = (sequence: number) => Buffer.from(JSON.stringify({ v: 1, h: ready.hostInstanceId, s: ready.sessionId, g: ready.generation, q: sequence })).toString('base64url');
  let sequence = 1;
  const frames: Array<[Sender, Json]> = [['server', ready]];
  for (const [sender, value] of piRpcTurn()) {
    if (sender === 'client') frames.push(['client', { kind: 'command', command: value }]);
    else if (value.type === 'response') frames.push(['server', { kind: 'response', response: value }]);
    else {
      sequence++;
      frames.push(['server', { kind: 'event', cursor: cursor(sequence), sequence, event: value }]);
    }
  }
  return {
    channels: [{ transport: 'ws', path: '/v1/session/agent-a/rpc', subprotocol: FRAMED_PROTOCOL }],
    conversation: frames.map(([sender, value]) => frame(sender, value)),
    lone: [ready, frames[1][1]],
  };
}

function acp(): ProtocolExamples {
  const scenario = piScenario();
  const rpc = (id: number, result: unknown) => ({ jsonrpc: '2.0', id, result });
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'test-client', version: '1.0.0' } } };
  const messages: Array<[Sender, unknown]> = [
    ['client', initialize],
    ['server', rpc(1, scenario.acpInitialize)],
    ['client', { jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: '/srv/work/project-a', mcpServers: [] } }],
    ['server', rpc(2, { sessionId: 'agent-a', ...scenario.acpLoadResult })],
    ['client', { jsonrpc: '2.0', id: 3, method: 'session/prompt', params: { sessionId: 'agent-a', prompt: [{ type: 'text', text: scenario.textTurnUserText }] } }],
    ...scenario.acpTextTurn.map((params): [Sender, unknown] => ['server', { jsonrpc: '2.0', method: 'session/update', params }]),
    ['server', rpc(3, { stopReason: 'end_turn' })],
  ];
  const frame = framed('frame');
  return {
    channels: [{ transport: 'ws', path: '/v1/session/agent-a/apc', subprotocol: ACP_PROTOCOL }],
    conversation: messages.map(([sender, value]) => frame(sender, value)),
    lone: [initialize, messages[4][1]],
  };
}

function unixNdjson(): ProtocolExamples {
  const line = framed('line');
  const conversation = ndjsonConversation().flatMap(({ command, replies }) => [line('client', command), ...replies.map((r) => line('server', r))]);
  return {
    channels: [{ transport: 'ndjson' }],
    conversation,
    lone: [conversation[0].value, conversation[1].value],
  };
}

/** Plain JSON-RPC 2.0 of methods no module knows: a language server's first calls, over a JSON-RPC WebSocket. */
function jsonRpc(): ProtocolExamples {
  const frame = framed('frame');
  const hover = { jsonrpc: '2.0', id: 0, method: 'textDocument/hover', params: { textDocument: { uri: 'file:///a.ts' }, position: { line: 1, character: 2 } } };
  const opened = { jsonrpc: '2.0', method: 'textDocument/didOpen', params: { textDocument: { uri: 'file:///a.ts', text: 'let a = 1;' } } };
  const messages: Array<[Sender, unknown]> = [
    ['client', hover],
    ['client', opened],
    ['server', { jsonrpc: '2.0', method: 'window/logMessage', params: { type: 3, message: 'hovering' } }],
    ['server', { jsonrpc: '2.0', id: 0, result: { contents: 'let a: number' } }],
    ['client', { jsonrpc: '2.0', id: 1, method: 'workspace/nope' }],
    ['server', { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Unknown method: workspace/nope' } }],
  ];
  return {
    channels: [{ transport: 'ws', path: '/rpc', subprotocol: 'jsonrpc' }],
    conversation: messages.map(([sender, value]) => frame(sender, value)),
    lone: [hover, opened],
  };
}

/** MCP over stdio: the SDK client's start of a session with the reference server, and one call of each kind. */
function mcp(): ProtocolExamples {
  const line = framed('line');
  const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { sampling: {} }, clientInfo: { name: 'test-client', version: '1.0.0' } } };
  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
  const tool = { name: 'echo', description: 'Echoes back the input', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } };
  const messages: Array<[Sender, unknown]> = [
    ['client', initialize],
    ['server', { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25', capabilities: { tools: {}, logging: {} }, serverInfo: { name: 'everything', version: '2.0.0' } } }],
    ['client', { jsonrpc: '2.0', method: 'notifications/initialized' }],
    ['client', list],
    ['server', { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'listing' } }],
    ['server', { jsonrpc: '2.0', id: 1, result: { tools: [tool] } }],
    ['client', { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' }, _meta: { progressToken: 2 } } }],
    ['server', { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 2, progress: 1, total: 2 } }],
    ['server', { jsonrpc: '2.0', id: 0, method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi?' } }], maxTokens: 10 } }],
    ['client', { jsonrpc: '2.0', id: 0, result: { role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'stand-in' } }],
    ['server', { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 2, progress: 2, total: 2 } }],
    ['server', { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'Echo: hi' }] } }],
    // An error answer to a well-formed call (a call to a tool the server never listed is a warning).
    ['client', { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { message: 'again' } } }],
    ['server', { jsonrpc: '2.0', id: 3, error: { code: -32603, message: 'Internal error: the echo backend is down' } }],
  ];
  return {
    channels: [
      { transport: 'stdio', sniffed: { protocol: 'mcp', evidence: 'MCP method initialize' } },
      { transport: 'http', method: 'POST', path: '/mcp', requestBody: { jsonrpc: '2.0', id: 1, method: 'tools/list' } },
      { transport: 'sse', method: 'GET', path: '/mcp', contentType: 'text/event-stream', requestHeaders: { 'Mcp-Session-Id': 'session-1' } },
      { transport: 'sse', method: 'GET', path: '/sse', contentType: 'text/event-stream', firstEvent: '/message?sessionId=abc' },
    ],
    conversation: messages.map(([sender, value]) => line(sender, value)),
    lone: [initialize, list],
  };
}

/** A streamed chat completion with a tool call, from the stand-in OpenAI upstream's scenario. */
function openAi(): ProtocolExamples {
  const request = { model: STANDIN_MODEL, messages: [{ role: 'user', content: 'What is the weather in Paris?' }], tools: [WEATHER_TOOL], stream: true, stream_options: { include_usage: true } };
  const http = { method: 'POST', path: '/v1/chat/completions' };
  const chunks = chatChunks(request, chatReply(request));
  return {
    channels: [
      { transport: 'sse', method: 'POST', path: '/v1/chat/completions', contentType: 'text/event-stream; charset=utf-8', requestBody: request },
      { transport: 'http', method: 'POST', path: '/v1/embeddings', contentType: 'application/json', requestBody: { model: 'text-embedding-3-small', input: 'hello' } },
      { transport: 'http', method: 'GET', path: '/v1/models' },
    ],
    conversation: [{ ...framed('body')('client', request), http }, ...chunks.map((chunk) => ({ ...framed('event')('server', chunk), http }))],
    lone: [request, chunks[0], chunks[chunks.length - 1]],
  };
}

export const PROTOCOL_EXAMPLES: Record<ProtocolId, () => ProtocolExamples> = {
  agui,
  'pi-rest': piRest,
  'pi-daemon-rpc': piDaemonRpc,
  'pi-rpc': piRpc,
  acp,
  mcp,
  'unix-ndjson': unixNdjson,
  'json-rpc': jsonRpc,
  openai: openAi,
};
