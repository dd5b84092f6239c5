import { answerJsonRpcMiss } from '../json-rpc/index.js';
import type { ChannelHint, ProtocolFacts } from '../protocol.js';
import { MCP_SCHEMAS } from './schemas.js';

/**
 * Which channels carry MCP, and how a replay matches and answers its messages. Over stdio the
 * child's first lines decide (sniff: `initialize` with a date-string version, `tools/list`, ...); a
 * channel they recognised as MCP is claimed whole.
 */
export const mcpReplayFacts: ProtocolFacts<'mcp', 'stdio' | 'file'> = {
  id: 'mcp',
  transports: ['stdio', 'file'],
  schemas: MCP_SCHEMAS,
  classify: (hint: ChannelHint) => (hint.sniffed?.protocol === 'mcp' ? 1 : 0),
  // JSON-RPC: a response carries its request's id; a progress token is the client's too.
  replay: {
    volatileFields: ['/id', '/params/_meta/progressToken', '/params/progressToken', '/params/requestId'],
    echoFields: ['/id', '/params/_meta/progressToken', '/params/progressToken', '/params/requestId'],
    missAnswers: { message: answerJsonRpcMiss, summary: 'MCP requests get a JSON-RPC error response' },
  },
};
