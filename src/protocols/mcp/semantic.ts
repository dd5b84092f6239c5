import { isJsonObject } from '../../core/json.js';
import type { SemanticFold } from '../protocol.js';

/**
 * `diff --semantic` for MCP: a conversation as what an agent learns from its tools' server, whatever
 * the transport carried it in: what each side declared at initialize, the tools, resources,
 * resource templates and prompts it was offered (each a set keyed by name or uri: the order and the
 * pages they came in do not count), and the calls it made with their answers. Request ids, progress
 * tokens and `_meta` are left out; so are pings, progress and log notifications, which vary from
 * run to run without changing what the agent sees.
 */
export interface McpSessionResult {
  kind: 'mcp-session';
  /** Each side's initialize: the client's params, the server's result (or error). */
  initialize: { client?: unknown; server?: unknown };
  tools: Record<string, unknown>;
  resources: Record<string, unknown>;
  resourceTemplates: Record<string, unknown>;
  prompts: Record<string, unknown>;
  /** The other requests either side made, in the order each was sent, with their answers. */
  calls: McpCall[];
  /**
   * The notifications either side sent that are not progress or log lines, each once, in the order
   * first sent: how often a timer-driven one (`notifications/resources/updated`) came varies by run.
   */
  notifications: Array<{ from: Sender; method: unknown; params?: unknown }>;
}

type Sender = 'client' | 'server';

export interface McpCall {
  from: Sender;
  method: string;
  /** What a call names: the tool or prompt called, the resource read. */
  name?: unknown;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

/** A list method's result field, its items' key, and the set in the fold it goes to. */
const LISTS: ReadonlyMap<string, { field: string; key: string; set: 'tools' | 'resources' | 'resourceTemplates' | 'prompts' }> = new Map([
  ['tools/list', { field: 'tools', key: 'name', set: 'tools' }],
  ['resources/list', { field: 'resources', key: 'uri', set: 'resources' }],
  ['resources/templates/list', { field: 'resourceTemplates', key: 'uriTemplate', set: 'resourceTemplates' }],
  ['prompts/list', { field: 'prompts', key: 'name', set: 'prompts' }],
] as const);

/** Notifications that vary from run to run without changing what the agent sees. */
const UNCOMPARED_NOTIFICATIONS: ReadonlySet<unknown> = new Set(['notifications/progress', 'notifications/message', 'notifications/initialized']);

/** Is this a JSON-RPC message (request, notification or response)? */
function isJsonRpc(value: unknown): value is Record<string, unknown> {
  return isJsonObject(value) && value.jsonrpc === '2.0';
}

export function materializeMcpSession(messages: readonly unknown[], senders: readonly Sender[]): McpSessionResult {
  const session: McpSessionResult = { kind: 'mcp-session', initialize: {}, tools: {}, resources: {}, resourceTemplates: {}, prompts: {}, calls: [], notifications: [] };
  // Requests waiting for their answer, per sender, by id: each side mints its own.
  const open = new Map<string, { method: string; call?: McpCall }>();
  const keyOf = (from: Sender, id: unknown) => `${from} ${JSON.stringify(id)}`;
  const notified = new Set<string>();
  messages.forEach((message, i) => {
    if (!isJsonRpc(message)) return;
    const from = senders[i] ?? 'server';
    if (typeof message.method === 'string') {
      if (message.id === undefined) {
        if (UNCOMPARED_NOTIFICATIONS.has(message.method)) return;
        const notification = { from, method: message.method, ...(message.params === undefined ? {} : { params: message.params }) };
        const text = JSON.stringify(notification);
        if (!notified.has(text)) session.notifications.push(notification);
        notified.add(text);
        return;
      }
      const method = message.method;
      if (method === 'initialize') session.initialize[from === 'client' ? 'client' : 'server'] = message.params;
      let call: McpCall | undefined;
      if (method !== 'initialize' && method !== 'ping' && !LISTS.has(method)) {
        const params = paramsWithoutCursor(message.params);
        const name = isJsonObject(params) ? (params.name ?? params.uri) : undefined;
        call = { from, method, ...(name === undefined ? {} : { name }), ...(params === undefined ? {} : { params }) };
        session.calls.push(call);
      }
      open.set(keyOf(from, message.id), { method, call });
      return;
    }
    // A response answers a request of the other side.
    const asker: Sender = from === 'client' ? 'server' : 'client';
    const request = open.get(keyOf(asker, message.id)) ?? (message.id === null ? undefined : requestElsewhere(session, asker, message));
    if (!request) return;
    open.delete(keyOf(asker, message.id));
    if (request.method === 'initialize') session.initialize.server = message.error !== undefined ? { error: message.error } : message.result;
    const list = LISTS.get(request.method);
    if (list && isJsonObject(message.result) && Array.isArray(message.result[list.field])) {
      for (const item of message.result[list.field] as unknown[]) {
        if (isJsonObject(item)) session[list.set][String(item[list.key])] = withoutKey(item, list.key);
      }
    } else if (list && message.error !== undefined) {
      session.calls.push({ from: asker, method: request.method, error: message.error });
    }
    if (request.call) {
      if (message.error !== undefined) request.call.error = message.error;
      else request.call.result = message.result;
    }
  });
  return session;
}

/**
 * The request an answer whose request is not in the exchange folded stands for: over HTTP the older
 * HTTP+SSE transport answers each POST on its GET stream, and a resumed stream carries an answer
 * whose request another exchange holds. A list result or an InitializeResult is told by its shape;
 * an empty one is left out, as a ping's is; any other answer is a call of method `answer`, so that
 * what it says is still compared.
 */
function requestElsewhere(session: McpSessionResult, asker: Sender, message: Record<string, unknown>): { method: string; call?: McpCall } | undefined {
  const result = message.result;
  // An empty result (a ping's, a logging level's) says nothing.
  if (isJsonObject(result) && Object.keys(result).length === 0) return undefined;
  if (isJsonObject(result)) {
    if (isJsonObject(result.serverInfo) && result.protocolVersion !== undefined) return { method: 'initialize' };
    for (const [method, list] of LISTS) if (Array.isArray(result[list.field])) return { method };
  }
  const call: McpCall = { from: asker, method: 'answer' };
  session.calls.push(call);
  return { method: 'answer', call };
}

/** A list request's page cursor is not part of what it asks; neither is it of any call. */
function paramsWithoutCursor(params: unknown): unknown {
  if (!isJsonObject(params) || params.cursor === undefined) return params;
  const { cursor: _cursor, ...rest } = params;
  return rest;
}

function withoutKey(item: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _key, ...rest } = item;
  return rest;
}

/** `tool "echo"` for a pointer under /tools/echo: how a report names a place in the fold. */
const SUBJECTS: Record<string, string> = { tools: 'tool', resources: 'resource', resourceTemplates: 'resource template', prompts: 'prompt' };

/**
 * Names a difference in the fold: `tool "echo": inputSchema /properties/message/type`, `tool "echo"`
 * (added or removed), `call 3 tools/call "echo": result /content/0/text`.
 */
export function describeMcpPointer(pointer: string, a: unknown, b: unknown): string | undefined {
  const segments = pointer.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const [top, key, field, ...rest] = segments;
  const inner = rest.length > 0 ? ` /${rest.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}` : '';
  const subject = SUBJECTS[top];
  if (subject !== undefined && key !== undefined) return `${subject} ${JSON.stringify(key)}${field === undefined ? '' : `: ${field}${inner}`}`;
  if (top === 'calls' && key !== undefined) {
    const call = (callAt(a, key) ?? callAt(b, key)) as McpCall | undefined;
    const what = call ? ` ${call.method}${call.name === undefined ? '' : ` ${JSON.stringify(call.name)}`}` : '';
    return `call ${Number(key) + 1}${what}${field === undefined ? '' : `: ${field}${inner}`}`;
  }
  return undefined;
}

function callAt(result: unknown, index: string): unknown {
  return isJsonObject(result) && Array.isArray(result.calls) ? result.calls[Number(index)] : undefined;
}

/**
 * An SSE event that tells the agent nothing of its tools' server: one with no data, by which
 * Streamable HTTP primes a stream so that its fresh event id can be resumed from, and the older
 * HTTP+SSE transport's `endpoint` event, whose URL names the session (each POST's path shows it);
 * and the `Accepted` its server's SDK answers each POST with (a finding where a body is not allowed).
 */
export function saysNothingToTheAgent(raw: string): boolean {
  if (raw.trim() === 'Accepted') return true;
  const lines = raw.split(/\r\n|\r|\n/).filter((line) => line !== '');
  if (lines.some((line) => /^event: ?endpoint$/.test(line))) return true;
  return lines.length > 0 && lines.every((line) => line === 'data' || line === 'data:' || line === 'data: ' || /^(?:id|event|retry)(?::|$)/.test(line) || line.startsWith(':'));
}

/**
 * MCP's fold for `diff --semantic`: every JSON-RPC message of either side, paired by id into one
 * session. Nothing in it depends on the transport: over HTTP each exchange (a POST and its answer,
 * the GET stream) folds into a session of its own, and what the HTTP session shares (its
 * `Mcp-Session-Id`, the event ids that prime its streams) is not compared.
 */
export const mcpSemantic: SemanticFold = {
  transports: ['stdio', 'file', 'http', 'sse'],
  folds: isJsonRpc,
  foldsClient: isJsonRpc,
  fold: (fed, _request, senders) => materializeMcpSession(fed, senders ?? []),
  describe: describeMcpPointer,
  drops: ['_meta'],
  saysNothing: saysNothingToTheAgent,
  isEmpty: (result) => isEmptyMcpSession(result as McpSessionResult),
};

/** A session that declared, listed, called and notified nothing: a ping's exchange, or a notification's POST. */
function isEmptyMcpSession(session: McpSessionResult): boolean {
  const { initialize, tools, resources, resourceTemplates, prompts, calls, notifications } = session;
  return [initialize, tools, resources, resourceTemplates, prompts].every((set) => Object.keys(set).length === 0) && calls.length === 0 && notifications.length === 0;
}
