import type { SessionHints } from '../protocol.js';
import { classifyJsonRpc } from '../json-rpc/json-rpc-message.js';
import { answerUnknownMcpSession } from './replay-miss.js';

/**
 * MCP's HTTP sessions, as a replay plays them: Streamable HTTP (2025-03-26 to 2025-11-25) issues
 * `Mcp-Session-Id` on the answer to `initialize` and takes it on every later request; HTTP+SSE
 * (2024-11-05) opens a session with `GET /sse`, whose first event, `endpoint`, names the URL the
 * client posts to with the session in its query.
 */
export const MCP_HTTP_SESSIONS: SessionHints = {
  header: 'mcp-session-id',
  opens: (body) => {
    const shape = classifyJsonRpc(body);
    return shape.kind === 'request' && shape.method === 'initialize';
  },
  endpointEvent: 'endpoint',
  messageEvent: 'message',
  awaited: (body) => classifyJsonRpc(body).kind !== 'notification',
  unknownSession: answerUnknownMcpSession,
};
