/**
 * The MCP reference server (`@modelcontextprotocol/server-everything`) in this process, over
 * Streamable HTTP on 127.0.0.1 port 0: its own server factory behind the SDK's
 * StreamableHTTPServerTransport (one session), as its `streamableHttp` CLI mode serves it on `/mcp`.
 * `connectMcpClient` drives it with the official SDK Client.
 */
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
// @ts-expect-error the package ships JavaScript without declarations
import { createServer as createEverythingServer } from '@modelcontextprotocol/server-everything/dist/server/index.js';

/** The reference server's CLI (`node <this> stdio|sse|streamableHttp`). */
export const EVERYTHING_CLI = fileURLToPath(import.meta.resolve('@modelcontextprotocol/server-everything/dist/index.js'));

export interface McpEverything {
  /** The MCP endpoint, e.g. `http://127.0.0.1:40123/mcp`. */
  url: string;
  close(): Promise<void>;
}

export async function startMcpEverything(): Promise<McpEverything> {
  const { server, cleanup } = createEverythingServer() as { server: { connect(t: unknown): Promise<void>; close(): Promise<void> }; cleanup(sessionId?: string): void };
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await server.connect(transport);
  const http = createHttpServer((req, res) => {
    void transport.handleRequest(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      cleanup(transport.sessionId);
      await server.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** The official SDK client, connected over Streamable HTTP to `url` (initialize and initialized done). */
export async function connectMcpClient(url: string): Promise<Client> {
  const client = new Client({ name: 'agent-proxy-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** A short session of the calls most clients make: list and call tools, list and read resources, prompts. */
export async function mcpSession(client: Client): Promise<void> {
  await client.listTools();
  await client.callTool({ name: 'echo', arguments: { message: 'hello' } });
  await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
  const resources = await client.listResources();
  if (resources.resources[0]) await client.readResource({ uri: resources.resources[0].uri });
  await client.listPrompts();
  await client.getPrompt({ name: 'simple-prompt' });
  await client.ping();
}
