// An MCP server over stdio (the official SDK's low-level Server) that asks its client for its roots
// as soon as the client says it is initialized, and offers one tool, `echo`. The roots request and
// the client's own next request then cross: the client may answer before or after calling the tool.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'roots-asker', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [{ name: 'echo', description: 'Echoes its text', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }],
}));
server.setRequestHandler(CallToolRequestSchema, (request) => ({ content: [{ type: 'text', text: `echo: ${request.params.arguments?.text}` }] }));
server.oninitialized = () => {
  server.listRoots().then(
    () => server.sendToolListChanged(),
    () => undefined,
  );
};
await server.connect(new StdioServerTransport());
// The SDK's stdio transport does not end with its input: the client closing stdin ends the server.
process.stdin.on('end', () => void server.close().finally(() => process.exit(0)));
