/**
 * A Streamable HTTP MCP server written here, in-process on 127.0.0.1 port 0, for what the SDK's
 * server cannot be made to do: break a transport rule deterministically. Its endpoint is
 * `/<switches>/mcp`, the switches joined with `+` (`/ok/mcp`, `/ping+two-streams/mcp`):
 * - `accepted-with-body`: a POSTed notification or response is answered 202 with a body (`Accepted`);
 * - `ping`: a tools/call first sends a ping request (id `srv-ping`) on the session's GET stream;
 *   `two-streams`: and the same ping on the call's own stream;
 * - `cut`: a tools/call's stream is primed with an event id and closed before its answer, which
 *   the session's next GET stream carries (with or without `Last-Event-ID`: the client decides);
 * - `drop`: a tools/call's stream ends without its answer (and without an event id to resume from);
 * - `expire`: the session is gone after its first tools/list (404 to anything that names it);
 * - `keep`: the server does not let its client end a session: DELETE is answered 405;
 * - `no-session-id`: the server issues no `Mcp-Session-Id`: its endpoint has one session, which each
 *   initialize begins anew;
 * - `late-request`: a DELETE is answered 200 but leaves the session's GET stream open, until a GET of
 *   the endpoint with `?send-late=<session id>` (sent to the server itself) makes the server send a
 *   ping request (id `srv-late`) on it and end it: a server request that comes after the DELETE;
 * - `auth`: every request must carry `Authorization: Bearer <STAND_IN_BEARER>` (401 otherwise);
 * - `echo-number`: the server changed for `diff --semantic`, its `echo` tool's `message` a number, not a string.
 * A request whose `_meta` names 2026-07-28 is answered alone, as that version has no sessions. Its
 * `subscriptions/listen` gets a stream that stays open until the client closes it: the
 * acknowledgment, then `notifications/tools/list_changed`, each naming the subscription; with
 * `unacked` no acknowledgment; `unasked` a `prompts/list_changed` too; `anonymous` the notification without the subscription's id; `listen-close` the stream ends
 * after them without a result; `listen-json` a plain JSON result at once. Its `tools/list` lists
 * `execute_sql`, whose `region`, `bearerToken`, `options.limit` and `options.dryRun` are mirrored
 * into headers (`x-mcp-header` Region, Bearer-Token, Limit, Dry-Run); with `bad-annotation` also
 * `score`, whose annotation is on a number (which the transport forbids).
 *
 * The older HTTP+SSE transport (2024-11-05) on the same switches: `GET /<switches>/sse` opens a
 * session's stream, whose `endpoint` event names `/<switches>/message?sessionId=session-N` (the
 * counter Streamable HTTP's session ids come from); each POST there is answered 202 `Accepted`, and
 * its answer comes on the stream as an `event: message`. `silent-list`: the stream never carries
 * the answer to tools/list; `held`: each answer waits until the test calls `release()`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HttpMcpStandIn {
  /** e.g. `http://127.0.0.1:40123` */
  origin: string;
  /** The method of each message POSTed to an HTTP+SSE session, as it came. */
  legacyPosts: string[];
  /** Sends the answers the `held` switch kept back, on their HTTP+SSE streams. */
  release(): void;
  close(): Promise<void>;
}

interface Session {
  version: string;
  switches: Set<string>;
  expired: boolean;
  get?: ServerResponse;
  /** The answer a cut stream still owes, sent on the next GET stream. */
  owed?: unknown;
}

type JsonRpcRequest = { id?: string | number; method?: string; params?: Record<string, unknown> };

const SERVER_INFO = { name: 'http-mcp-stand-in', version: '1.0.0' };

/** 2026-07-28's tools: arguments mirrored into `Mcp-Param-*` headers, one of them nested. */
const EXECUTE_SQL = {
  name: 'execute_sql',
  inputSchema: {
    type: 'object',
    properties: {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      query: { type: 'string' },
      bearerToken: { type: 'string', 'x-mcp-header': 'Bearer-Token' },
      options: { type: 'object', properties: { limit: { type: 'integer', 'x-mcp-header': 'Limit' }, dryRun: { type: ['boolean', 'null'], 'x-mcp-header': 'Dry-Run' } } },
    },
    required: ['region', 'query'],
  },
};
const SCORE = { name: 'score', inputSchema: { type: 'object', properties: { weight: { type: 'number', 'x-mcp-header': 'Weight' } } } };

/** The token the `auth` switch asks for: distinctive, so that a test can look for it in a recording's bytes. */
export const STAND_IN_BEARER = 'mcp-bearer-4c7e1a9f3b6d2e8a0f5c';

/** `always`: switches on for every endpoint (`echo-number`, for a server changed on the same path). */
export async function startHttpMcpStandIn(always: readonly string[] = []): Promise<HttpMcpStandIn> {
  const sessions = new Map<string, Session>();
  /** The streams of the older transport's sessions, by the id their endpoint event named. */
  const legacyStreams = new Map<string, ServerResponse>();
  const legacyPosts: string[] = [];
  const held: Array<() => void> = [];
  let issued = 0;

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
  const refuse = (res: ServerResponse, status: number, message: string) => json(res, status, { jsonrpc: '2.0', error: { code: -32000, message }, id: null });
  const event = (res: ServerResponse, message: unknown, id?: string) => res.write(`${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(message)}\n\n`);

  /** The endpoint's one session, when its server issues no ids. */
  const endpointKey = (switches: Set<string>) => `endpoint:${[...switches].join('+')}`;
  /** Sessions their client deleted whose GET stream is left open (`late-request`). */
  const deleted = new Map<string, Session>();

  function sessionOf(req: IncomingMessage, res: ServerResponse, switches: Set<string>): Session | undefined {
    const id = switches.has('no-session-id') ? endpointKey(switches) : req.headers['mcp-session-id'];
    if (typeof id !== 'string') return void refuse(res, 400, 'Mcp-Session-Id required');
    const session = sessions.get(id);
    if (!session || session.expired) return void refuse(res, 404, 'Session not found');
    return session;
  }

  async function post(req: IncomingMessage, res: ServerResponse, switches: Set<string>): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonRpcRequest;
    const meta = body.params?._meta as Record<string, unknown> | undefined;
    if (meta?.['io.modelcontextprotocol/protocolVersion'] === '2026-07-28' && body.method === 'subscriptions/listen') return listen(res, body.id!, switches);
    if (meta?.['io.modelcontextprotocol/protocolVersion'] === '2026-07-28' && body.method === 'tools/list') {
      const tools = switches.has('bad-annotation') ? [EXECUTE_SQL, SCORE] : [EXECUTE_SQL];
      return json(res, 200, { jsonrpc: '2.0', id: body.id, result: { resultType: 'complete', tools, ttlMs: 0, cacheScope: 'private' } });
    }
    if (meta?.['io.modelcontextprotocol/protocolVersion'] === '2026-07-28') {
      return json(res, 200, { jsonrpc: '2.0', id: body.id, result: { resultType: 'complete', content: [{ type: 'text', text: 'done' }], isError: false } });
    }
    if (body.method === 'initialize') {
      const anonymous = switches.has('no-session-id');
      const id = anonymous ? endpointKey(switches) : `session-${++issued}`;
      // Without ids a new initialize replaces the endpoint's session, whose GET stream ends.
      sessions.get(id)?.get?.end();
      sessions.set(id, { version: String(body.params?.protocolVersion), switches, expired: false });
      return json(res, 200, answerOf(body, switches), anonymous ? {} : { 'mcp-session-id': id });
    }
    const session = sessionOf(req, res, switches);
    if (!session) return;
    if (body.id === undefined || body.method === undefined) {
      // A notification or a response.
      if (switches.has('accepted-with-body')) res.writeHead(202).end('Accepted');
      else res.writeHead(202).end();
      return;
    }
    if (body.method === 'tools/list') {
      if (switches.has('expire')) session.expired = true;
      return json(res, 200, answerOf(body, switches));
    }
    const answer = answerOf(body, switches);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (switches.has('drop')) return void res.end();
    if (switches.has('cut')) {
      session.owed = answer;
      res.write('id: primed-1\ndata: \n\n');
      return void res.end();
    }
    const ping = { jsonrpc: '2.0', id: 'srv-ping', method: 'ping' };
    if (switches.has('ping') && session.get) event(session.get, ping);
    if (switches.has('two-streams')) event(res, ping);
    event(res, answer);
    res.end();
  }

  /** The answer to a request: initialize's result, the tool catalog, or (any other method) the echo tool's result. */
  function answerOf(body: JsonRpcRequest, switches: Set<string>): unknown {
    if (body.method === 'initialize') return { jsonrpc: '2.0', id: body.id, result: { protocolVersion: body.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: SERVER_INFO } };
    if (body.method === 'tools/list') {
      const message = { type: switches.has('echo-number') ? 'number' : 'string' };
      return { jsonrpc: '2.0', id: body.id, result: { tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { message } } }] } };
    }
    return { jsonrpc: '2.0', id: body.id, result: { content: [{ type: 'text', text: 'echo' }] } };
  }

  /** The older transport's GET: a session's stream, opened by its endpoint event. */
  function openLegacy(res: ServerResponse, switchText: string): void {
    const id = `session-${++issued}`;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(`event: endpoint\ndata: /${switchText}/message?sessionId=${id}\n\n`);
    legacyStreams.set(id, res);
    res.on('close', () => legacyStreams.delete(id));
  }

  /** A POST of the older transport: taken with 202, answered on its session's stream. */
  async function postLegacy(req: IncomingMessage, res: ServerResponse, switches: Set<string>): Promise<void> {
    const stream = legacyStreams.get(new URL(req.url ?? '/', 'http://stand-in.invalid').searchParams.get('sessionId') ?? '');
    if (!stream) return refuse(res, 404, 'Session not found');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonRpcRequest;
    legacyPosts.push(String(body.method));
    res.writeHead(202).end('Accepted');
    if (body.id === undefined || body.method === undefined) return;
    if (body.method === 'tools/list' && switches.has('silent-list')) return;
    const answer = () => stream.write(`event: message\ndata: ${JSON.stringify(answerOf(body, switches))}\n\n`);
    if (switches.has('held')) held.push(answer);
    else answer();
  }

  function listen(res: ServerResponse, id: string | number, switches: Set<string>): void {
    const subscription = { 'io.modelcontextprotocol/subscriptionId': id };
    if (switches.has('listen-json')) return json(res, 200, { jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: subscription } });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (!switches.has('unacked')) event(res, { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: subscription, notifications: { toolsListChanged: true } } });
    event(res, { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: switches.has('anonymous') ? {} : { _meta: subscription } });
    if (switches.has('unasked')) event(res, { jsonrpc: '2.0', method: 'notifications/prompts/list_changed', params: { _meta: subscription } });
    if (switches.has('listen-close')) res.end();
  }

  function get(req: IncomingMessage, res: ServerResponse, switches: Set<string>): void {
    const late = new URL(req.url ?? '/', 'http://stand-in').searchParams.get('send-late');
    if (late !== null) {
      const stream = deleted.get(late)?.get;
      deleted.delete(late);
      if (stream) stream.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id: 'srv-late', method: 'ping' })}\n\n`);
      return void res.writeHead(stream ? 200 : 404).end();
    }
    const session = sessionOf(req, res, switches);
    if (!session) return;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
    if (session.owed !== undefined) {
      event(res, session.owed, 'resumed-1');
      session.owed = undefined;
      return void res.end();
    }
    session.get = res;
  }

  const server = createServer((req, res) => {
    const [, switchText = '', endpoint] = (req.url ?? '/').split('?')[0].split('/');
    if (endpoint !== 'mcp' && endpoint !== 'sse' && endpoint !== 'message') return void res.writeHead(404).end();
    const switches = new Set([...switchText.split('+'), ...always]);
    if (switches.has('auth') && req.headers.authorization !== `Bearer ${STAND_IN_BEARER}`) return void res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
    if (endpoint === 'sse') return req.method === 'GET' ? openLegacy(res, switchText) : void res.writeHead(405).end();
    if (endpoint === 'message') return req.method === 'POST' ? void postLegacy(req, res, switches).catch(() => res.destroy()) : void res.writeHead(405).end();
    if (req.method === 'POST') return void post(req, res, switches).catch(() => res.destroy());
    if (req.method === 'GET') return get(req, res, switches);
    if (req.method === 'DELETE') {
      if (switches.has('keep')) return void res.writeHead(405, { allow: 'GET, POST' }).end();
      const session = sessionOf(req, res, switches);
      if (!session) return;
      const id = String(req.headers['mcp-session-id']);
      if (switches.has('late-request')) deleted.set(id, session);
      else session.get?.end();
      sessions.delete(id);
      return void res.writeHead(200).end();
    }
    res.writeHead(405).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    legacyPosts,
    release: () => {
      for (const answer of held.splice(0)) answer();
    },
    async close() {
      for (const session of [...sessions.values(), ...deleted.values()]) session.get?.end();
      for (const stream of legacyStreams.values()) stream.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
