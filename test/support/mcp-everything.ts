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
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
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

/**
 * The SDK client with every client capability the reference server uses (sampling, elicitation,
 * roots), each answered the same way every run, connected over `transport`.
 */
export async function connectCapableClient(transport: Transport): Promise<Client> {
  const client = new Client({ name: 'agent-proxy-test', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {}, roots: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', content: { type: 'text', text: 'a stand-in answer' }, model: 'stand-in', stopReason: 'endTurn' }));
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' }));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///srv/work', name: 'work' }] }));
  await client.connect(transport);
  return client;
}

/** What the reference server makes anew on each run: the time a dynamic resource was created at, a task's id. */
function steady(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key, v: unknown) => {
    if (typeof v !== 'string') return v;
    if (key === 'taskId') return '<task id>';
    if (key === 'blob') return steady(Buffer.from(v, 'base64').toString('utf8'));
    return v.replace(/\b\d{1,2}:\d{2}:\d{2}\s?[AP]M\b/g, '<time>');
  });
}

/**
 * Everything the reference server offers, through the SDK client, in one order: every tool (the one
 * that needs a task through the SDK's task stream), every resource and template, subscription,
 * every prompt, completions, every logging level, ping. Each result as the client got it, with the
 * times the server stamps made steady.
 *
 * The task takes the server four seconds of its own stages, polled once a second. `taskAlongside`
 * starts it right after tools/list and lets the other calls run meanwhile (its result still noted
 * in its place): for a transport that carries concurrent requests and a check that does not replay
 * the session turn by turn (a stdio replay waits for each recorded line in order).
 */
export async function mcpEverySession(client: Client, options: { taskAlongside?: boolean } = {}): Promise<Array<[string, unknown]>> {
  const seen: Array<[string, unknown]> = [];
  const note = (what: string, value: unknown) => seen.push([what, steady(value)]);
  const tools = await client.listTools();
  note('tools/list', tools);
  // Needs a task: the SDK's stream creates it, polls it and fetches its result.
  const research = async (): Promise<unknown[]> => {
    const outcomes: unknown[] = [];
    for await (const message of client.experimental.tasks.callToolStream({ name: 'simulate-research-query', arguments: { topic: 'tides' } })) {
      if (message.type === 'result' || message.type === 'error') outcomes.push(message.type === 'result' ? message.result : String(message.error));
    }
    return outcomes;
  };
  const task = options.taskAlongside ? research() : undefined;
  // Awaited in its place below; a call failing first must not leave it unhandled.
  task?.catch(() => undefined);
  const call = async (name: string, args: Record<string, unknown> = {}) => note(`tools/call ${name}`, await client.callTool({ name, arguments: args }));
  await call('echo', { message: 'hello' });
  for (const messageType of ['error', 'success', 'debug']) await call('get-annotated-message', { messageType, includeImage: true });
  await call('get-env');
  await call('get-resource-links', { count: 2 });
  await call('get-resource-reference', { resourceType: 'Text', resourceId: 1 });
  await call('get-resource-reference', { resourceType: 'Blob', resourceId: 2 });
  await call('get-structured-content', { location: 'Chicago' });
  await call('get-sum', { a: 2, b: 3 });
  await call('get-tiny-image');
  await call('gzip-file-as-resource', { name: 'hello.txt.gz', data: 'data:text/plain;base64,aGVsbG8gd29ybGQ=' });
  const progress: unknown[] = [];
  // Four steps 0.3 s apart: how many the client sees depends on timing, since the last progress comes
  // a few ms before the result and the SDK drops one it reads in the same chunk as the result. On a
  // loaded machine a stall of the client or the proxy joins what arrived meanwhile into one chunk, so
  // with two steps one stall could lose them all; with four it takes a stall of the whole 0.9 s.
  note('tools/call trigger-long-running-operation', await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 1.2, steps: 4 } }, undefined, { onprogress: (p) => progress.push(p) }));
  note('progress', { reported: progress.length > 0, total: (progress.at(-1) as { total?: number } | undefined)?.total });
  await call('get-roots-list');
  await call('trigger-elicitation-request');
  await call('trigger-sampling-request', { prompt: 'hi', maxTokens: 5 });
  for (const tool of ['toggle-simulated-logging', 'toggle-subscriber-updates']) {
    await call(tool);
    await call(tool);
  }
  for (const outcome of await (task ?? research())) note('task simulate-research-query', outcome);

  const resources = await client.listResources();
  note('resources/list', resources);
  for (const resource of resources.resources) note(`resources/read ${resource.uri}`, await client.readResource({ uri: resource.uri }));
  note('resources/templates/list', await client.listResourceTemplates());
  for (const uri of ['demo://resource/dynamic/text/1', 'demo://resource/dynamic/blob/1']) note(`resources/read ${uri}`, await client.readResource({ uri }));
  note('resources/subscribe', await client.subscribeResource({ uri: 'demo://resource/dynamic/text/1' }));
  note('resources/unsubscribe', await client.unsubscribeResource({ uri: 'demo://resource/dynamic/text/1' }));

  const prompts = await client.listPrompts();
  note('prompts/list', prompts);
  const promptArgs: Record<string, Record<string, string>> = { 'args-prompt': { city: 'Paris', state: 'TX' }, 'completable-prompt': { department: 'Engineering', name: 'Alice' }, 'resource-prompt': { resourceType: 'Text', resourceId: '1' } };
  for (const prompt of prompts.prompts) note(`prompts/get ${prompt.name}`, await client.getPrompt({ name: prompt.name, arguments: promptArgs[prompt.name] ?? {} }));
  note('completion/complete prompt', await client.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'E' } }));
  note('completion/complete resource', await client.complete({ ref: { type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' }, argument: { name: 'resourceId', value: '1' } }));
  for (const level of ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const) note(`logging/setLevel ${level}`, await client.setLoggingLevel(level));
  note('ping', await client.ping());
  return seen;
}
