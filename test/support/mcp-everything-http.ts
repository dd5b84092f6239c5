/**
 * The MCP reference server (`@modelcontextprotocol/server-everything`) in this process on
 * 127.0.0.1 port 0, on both its HTTP transports as its own launchers serve them (they take only a
 * fixed PORT): Streamable HTTP on `/mcp` (a server and a transport per session, resumable through
 * an in-memory event store, DELETE ends the session) and the older HTTP+SSE transport on `/sse`,
 * whose endpoint event names `/message?sessionId=…`.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport, type EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
// @ts-expect-error the package ships JavaScript without declarations
import { createServer as createEverythingServer } from '@modelcontextprotocol/server-everything/dist/server/index.js';

interface Everything {
  server: { connect(t: unknown): Promise<void>; close(): Promise<void> };
  cleanup(sessionId?: string): void;
}

export interface McpEverythingHttp {
  /** The origin, e.g. `http://127.0.0.1:40123`: Streamable HTTP at `/mcp`, HTTP+SSE at `/sse`. */
  origin: string;
  close(): Promise<void>;
}

/** The reference launcher's event store: every event kept, replayed after the one a client names. */
class MemoryEventStore implements EventStore {
  private readonly events: Array<{ id: string; streamId: string; message: JSONRPCMessage }> = [];
  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = randomUUID();
    this.events.push({ id, streamId, message });
    return id;
  }
  async replayEventsAfter(lastEventId: string, { send }: { send: (id: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const at = this.events.findIndex((e) => e.id === lastEventId);
    if (at < 0) return lastEventId;
    const streamId = this.events[at].streamId;
    let last = lastEventId;
    for (const event of this.events.slice(at + 1).filter((e) => e.streamId === streamId)) {
      await send(event.id, event.message);
      last = event.id;
    }
    return last;
  }
}

export async function startMcpEverythingHttp(): Promise<McpEverythingHttp> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const legacy = new Map<string, SSEServerTransport>();
  const servers: Everything[] = [];
  const everything = (): Everything => {
    const made = createEverythingServer() as Everything;
    servers.push(made);
    return made;
  };

  async function streamable(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const id = req.headers['mcp-session-id'];
    const known = typeof id === 'string' ? sessions.get(id) : undefined;
    if (known) return known.handleRequest(req, res);
    if (req.method !== 'POST' || id !== undefined) {
      res.writeHead(id === undefined ? 400 : 404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'no such session' }, id: null }));
      return;
    }
    const { server } = everything();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new MemoryEventStore(),
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
      onsessionclosed: (sessionId) => void sessions.delete(sessionId),
    });
    await server.connect(transport);
    return transport.handleRequest(req, res);
  }

  async function sse(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    if (req.method === 'GET' && path === '/sse') {
      const { server } = everything();
      const transport = new SSEServerTransport('/message', res);
      legacy.set(transport.sessionId, transport);
      res.on('close', () => legacy.delete(transport.sessionId));
      await server.connect(transport);
      return;
    }
    const transport = legacy.get(query.get('sessionId') ?? '');
    if (!transport) return void res.writeHead(404).end();
    return transport.handlePostMessage(req, res);
  }

  const http = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const handled = url.pathname === '/mcp' ? streamable(req, res) : sse(req, res, url.pathname, url.searchParams);
    void handled.catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    async close() {
      for (const { server, cleanup } of servers) {
        cleanup();
        await server.close();
      }
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
