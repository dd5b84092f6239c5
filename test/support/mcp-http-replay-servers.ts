/**
 * The MCP reference server (`@modelcontextprotocol/server-everything`) in this process, served as its
 * own launchers serve it but on 127.0.0.1 port 0 (they take only a fixed PORT): one server and one SDK
 * transport per session. Streamable HTTP on `/mcp` (a POST without a session header starts a session;
 * GET, DELETE and later POSTs name theirs), and the legacy HTTP+SSE transport (`GET /sse` opens a
 * session's stream, `POST /message?sessionId=…` carries the client's messages). `mcpShortSession`
 * is a few seconds' scenario for the SDK client.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import type { EventStore, StreamId, EventId } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
// @ts-expect-error the package ships JavaScript without declarations
import { createServer as createEverythingServer } from '@modelcontextprotocol/server-everything/dist/server/index.js';

interface EverythingServer {
  server: { connect(t: unknown): Promise<void>; close(): Promise<void>; server: { onclose?: () => void } };
  cleanup(sessionId?: string): void;
}

export interface McpHttpEverything {
  /** `http://127.0.0.1:PORT`: the Streamable HTTP endpoint is `/mcp`, the legacy one `/sse`. */
  origin: string;
  /** Sessions started so far. */
  sessions(): number;
  /** Dies as a killed process would: every connection dropped at once, no stream ended cleanly, nothing served after. */
  kill(): void;
  close(): Promise<void>;
}

/** The SDK's resumability contract, kept in memory as server-everything's launcher keeps it: event ids for resumption. */
class MemoryEventStore implements EventStore {
  private readonly events: Array<{ id: EventId; stream: StreamId; message: JSONRPCMessage }> = [];
  private next = 0;

  async storeEvent(stream: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const id = `${stream}_${++this.next}`;
    this.events.push({ id, stream, message });
    return id;
  }

  async replayEventsAfter(lastEventId: EventId, { send }: { send: (id: EventId, message: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    const at = this.events.findIndex((e) => e.id === lastEventId);
    const stream = at < 0 ? '' : this.events[at].stream;
    for (const event of this.events.slice(at + 1)) if (event.stream === stream) await send(event.id, event.message);
    return stream;
  }
}

/** server-everything over both HTTP transports, a fresh server per session; `jsonResponse`: POSTs answered with JSON rather than a stream. */
export async function startMcpHttpEverything(options: { eventStore?: boolean; jsonResponse?: boolean } = {}): Promise<McpHttpEverything> {
  const streamable = new Map<string, StreamableHTTPServerTransport>();
  const legacy = new Map<string, SSEServerTransport>();
  const servers: EverythingServer[] = [];
  let started = 0;

  const startServer = (): EverythingServer => {
    const made = createEverythingServer() as EverythingServer;
    servers.push(made);
    started++;
    return made;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/mcp') {
      const sessionId = req.headers['mcp-session-id'];
      const known = typeof sessionId === 'string' ? streamable.get(sessionId) : undefined;
      if (known) return known.handleRequest(req, res);
      if (sessionId !== undefined || req.method !== 'POST') return void res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
      const { server, cleanup } = startServer();
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        ...(options.eventStore ? { eventStore: new MemoryEventStore() } : {}),
        // Each POST answered with one JSON body; the server's own requests then come on the GET stream.
        ...(options.jsonResponse ? { enableJsonResponse: true } : {}),
        onsessioninitialized: (id) => void streamable.set(id, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId) streamable.delete(transport.sessionId);
        cleanup(transport.sessionId);
      };
      await server.connect(transport);
      return transport.handleRequest(req, res);
    }
    if (url.pathname === '/sse' && req.method === 'GET') {
      const { server, cleanup } = startServer();
      const transport = new SSEServerTransport('/message', res);
      legacy.set(transport.sessionId, transport);
      transport.onclose = () => {
        legacy.delete(transport.sessionId);
        cleanup(transport.sessionId);
      };
      return server.connect(transport);
    }
    if (url.pathname === '/message' && req.method === 'POST') {
      const transport = legacy.get(url.searchParams.get('sessionId') ?? '');
      if (transport) return transport.handlePostMessage(req, res);
    }
    res.writeHead(404).end();
  };

  const http = createHttpServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    sessions: () => started,
    kill() {
      http.close();
      http.closeAllConnections();
    },
    async close() {
      for (const { server } of servers) await server.close().catch(() => undefined);
      http.closeAllConnections();
      if (http.listening) await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/**
 * A short session through the SDK client that still has the server ask the client (sampling,
 * elicitation, roots) and report progress: what a replay must hold back until the client's answers
 * arrive. Each result as the client got it.
 */
export async function mcpShortSession(client: Client): Promise<Array<[string, unknown]>> {
  const seen: Array<[string, unknown]> = [];
  seen.push(['tools/list', (await client.listTools()).tools.map((t) => t.name)]);
  const call = async (name: string, args: Record<string, unknown> = {}) => seen.push([`tools/call ${name}`, await client.callTool({ name, arguments: args })]);
  await call('echo', { message: 'hello' });
  await call('trigger-sampling-request', { prompt: 'hi', maxTokens: 5 });
  await call('trigger-elicitation-request');
  await call('get-roots-list');
  // Four steps 0.2 s apart, so one stall cannot join them all into the result's chunk (see mcpEverySession).
  const progress: unknown[] = [];
  seen.push(['tools/call trigger-long-running-operation', await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.8, steps: 4 } }, undefined, { onprogress: (p) => progress.push(p) })]);
  seen.push(['progress', progress.length > 0]);
  const resources = await client.listResources();
  seen.push(['resources/read', await client.readResource({ uri: resources.resources[0].uri })]);
  seen.push(['prompts/get', await client.getPrompt({ name: 'simple-prompt' })]);
  seen.push(['logging/setLevel', await client.setLoggingLevel('info')]);
  seen.push(['ping', await client.ping()]);
  return seen;
}
