// The MCP server side of bench/mcp-stdio.js: a stand-in that speaks MCP over stdio (2025-11-25),
// answering each request line as it comes: initialize, tools/list (one `echo` tool with an input
// and an output schema, so a recorder checks both contracts on every call), tools/call, ping.
// Nothing else is written to stdout; it exits when stdin ends.
//   node bench/mcp-server.js
import { createInterface } from 'node:readline';

const ECHO = {
  name: 'echo',
  description: 'Echoes the message back',
  inputSchema: { type: 'object', properties: { message: { type: 'string' }, count: { type: 'integer', minimum: 0 } }, required: ['message'] },
  outputSchema: { type: 'object', properties: { echoed: { type: 'string' }, length: { type: 'integer' } }, required: ['echoed'] },
};

function answer(request) {
  switch (request.method) {
    case 'initialize':
      return { protocolVersion: '2025-11-25', capabilities: { tools: { listChanged: false } }, serverInfo: { name: 'bench-mcp', version: '1.0.0' } };
    case 'tools/list':
      return { tools: [ECHO] };
    case 'tools/call': {
      const message = String(request.params?.arguments?.message ?? '');
      return { content: [{ type: 'text', text: `Echo: ${message}` }], structuredContent: { echoed: message, length: message.length } };
    }
    default:
      return {};
  }
}

const out = [];
let scheduled = false;
/** Answers written together once the lines read in one go are answered, as a server's event loop does. */
const flush = () => {
  scheduled = false;
  process.stdout.write(out.join(''));
  out.length = 0;
};

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return; // a notification
  out.push(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: answer(message) }) + '\n');
  if (!scheduled) {
    scheduled = true;
    setImmediate(flush);
  }
});
