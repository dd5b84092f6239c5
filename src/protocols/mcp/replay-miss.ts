import { answerJsonRpcMiss } from '../json-rpc/replay-miss.js';
import { jsonAnswer, type HttpMissAnswer, type MessageMissContext, type MissedHttpRequest, type MissFacts } from '../miss-answer.js';
import { isJsonObject } from '../../core/json.js';
import { classifyJsonRpc } from '../json-rpc/json-rpc-message.js';

/**
 * A line (stdio) that matched nothing: JSON-RPC's error response carrying the request's id, with the
 * miss report as the error's `data`, so the SDK raises an McpError whose message names the nearest
 * recorded call and whose `data` says what differs. Notifications and responses get none.
 */
export function answerMcpMessageMiss(value: unknown, context: MessageMissContext): unknown {
  const answer = answerJsonRpcMiss(value, context);
  if (!isJsonObject(answer) || !isJsonObject(answer.error) || context.details === undefined) return answer;
  return { ...answer, error: { ...answer.error, data: { code: 'replay_miss', ...context.details } } };
}

/**
 * A POST, GET or DELETE of Streamable HTTP or HTTP+SSE that matched nothing, answered as an MCP
 * server would so the SDK carries on: a request gets 200 with the JSON-RPC error above (the SDK
 * rejects that call with an McpError); a notification or response gets 202, which is all a server
 * ever says to one; a GET gets 405 (no stream offered) and a DELETE 405 (the session cannot be
 * ended by the client), both of which the SDK accepts. Each answer's body carries the report.
 */
export function answerMcpHttpMiss(request: MissedHttpRequest, miss: MissFacts): HttpMissAnswer {
  const report = { code: 'replay_miss', message: miss.message, ...miss.details };
  if (request.method === 'GET' || request.method === 'DELETE') return jsonAnswer(405, { jsonrpc: '2.0', id: null, error: { code: -32000, message: miss.message, data: report } }, { allow: 'POST' });
  const kind = request.body === undefined ? undefined : classifyJsonRpc(request.body).kind;
  if (kind === 'notification' || kind === 'response') return { status: 202, headers: { 'content-length': '0' }, body: Buffer.alloc(0) };
  // A request near a recorded one is invalid (-32600); one with nothing near it, of a method never recorded (-32601).
  const method = isJsonObject(request.body) && typeof request.body.method === 'string' ? request.body.method : '';
  const recordedMethods = new Set(miss.details.nearest === undefined ? [] : [method]);
  const answer = answerMcpMessageMiss(request.body, { message: miss.message, recordedMethods, details: miss.details });
  return jsonAnswer(answer === undefined ? 400 : 200, answer ?? { jsonrpc: '2.0', id: null, error: { code: -32600, message: miss.message, data: report } });
}

/**
 * A request naming a session the replay does not serve (never opened, or ended by DELETE): 404 with
 * a JSON-RPC error, as the spec has a server answer an unknown session; the client must initialize
 * anew. The SDK raises it as an error naming the status.
 */
export function answerUnknownMcpSession(request: MissedHttpRequest, miss: MissFacts): HttpMissAnswer {
  const id = isJsonObject(request.body) && request.body.id !== undefined ? request.body.id : null;
  return jsonAnswer(404, { jsonrpc: '2.0', id, error: { code: -32001, message: `Session not found: ${miss.message}`, data: { code: 'replay_miss', ...miss.details } } });
}
