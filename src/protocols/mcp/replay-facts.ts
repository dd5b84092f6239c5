// The light parts of JSON-RPC, not its index: a replay loads every protocol's facts, never a checker.
import { JSON_RPC_RULES } from '../json-rpc/json-rpc-rules.js';
import { classifyJsonRpc } from '../json-rpc/json-rpc-message.js';
import { jsonRpcPeerRequest } from '../json-rpc/peer-request.js';
import type { ChannelHint, ProtocolFacts } from '../protocol.js';
import { classifyMcpHttp, mcpHttpEvidence } from './http-recognition.js';
import { MCP_RULES } from './mcp-rules.js';
import { MCP_SCHEMAS } from './schemas.js';
import { answerMcpHttpMiss, answerMcpMessageMiss } from './replay-miss.js';
import { MCP_HTTP_SESSIONS } from './replay-sessions.js';
import { mcpMessageEvidence, sniffMcp } from './sniff.js';

/**
 * Which channels carry MCP, and how a replay matches and answers its messages. Over stdio the
 * child's first lines decide (sniff: `initialize` with a date-string version, `tools/list`, ...); a
 * channel they recognised as MCP is claimed whole. Over HTTP, an exchange is MCP's by its JSON-RPC
 * body's MCP method or MCP's request headers (http-recognition.ts); the older HTTP+SSE transport's
 * GET stream by its first messages.
 */
export const mcpReplayFacts: ProtocolFacts<'mcp', 'stdio' | 'http' | 'sse' | 'file'> = {
  id: 'mcp',
  transports: ['stdio', 'http', 'sse', 'file'],
  // A dialect of JSON-RPC: its envelope, correlation and miss answer.
  buildsOn: ['json-rpc'],
  // A request left open is JSON-RPC's finding; a session that never sent notifications/initialized, MCP's.
  streamEndRules: [JSON_RPC_RULES.unansweredRequest, MCP_RULES.initializedMissing],
  schemas: MCP_SCHEMAS,
  classify: (hint: ChannelHint) => (hint.sniffed?.protocol === 'mcp' ? 1 : classifyMcpHttp(hint)),
  channelEvidence: (hint) => hint.sniffed?.evidence ?? mcpHttpEvidence(hint) ?? 'MCP methods in its first lines',
  sniff: sniffMcp,
  messageEvidence: mcpMessageEvidence,
  dialectOf: 'json-rpc',
  fields: {
    // JSON-RPC: a response carries its request's id.
    '/id': 'echoed-client-id',
    // A request's progress token, which the other side's progress notifications name.
    '/params/_meta/progressToken': 'client-id',
    '/params/progressToken': { echoedFrom: ['/params/_meta/progressToken'] },
    // A cancellation names a request by its id.
    '/params/requestId': 'client-id',
  },
  replay: {
    missAnswers: { message: answerMcpMessageMiss, http: answerMcpHttpMiss, summary: 'MCP requests get a JSON-RPC error response (the miss report in its data)' },
    sessions: MCP_HTTP_SESSIONS,
    // The server asks its client too (roots, sampling, elicitation): the client's answer comes when it comes.
    peerRequest: jsonRpcPeerRequest,
    // 2026-07-28: a listen stream lives until its client closes it (the close is the cancellation).
    longLived: (body) => {
      const shape = classifyJsonRpc(body);
      return shape.kind === 'request' && shape.method === 'subscriptions/listen';
    },
  },
};
