import { answerJsonRpcMiss } from '../json-rpc/replay-miss.js';
import { jsonRpcPeerRequest } from '../json-rpc/peer-request.js';
import { JSON_RPC_RULES } from '../json-rpc/json-rpc-rules.js';
import type { ChannelHint, ProtocolFacts } from '../protocol.js';
import { ACP_SCHEMAS } from './schemas.js';
import { acpMessageEvidence, sniffAcp } from './sniff.js';

/** The WebSocket subprotocol of pi-daemon's `/v1/session/{ref}/apc` route. */
export const ACP_SUBPROTOCOL = 'agent-client-protocol.v1';

const APC_PATH = /^\/v1\/session\/[^/]+\/apc$/;

/** What made classify claim a channel, for `show`. */
export function acpChannelEvidence(hint: ChannelHint): string {
  return hint.subprotocol === ACP_SUBPROTOCOL ? `WebSocket subprotocol ${ACP_SUBPROTOCOL}` : 'route GET /v1/session/{sessionRef}/apc';
}

/** Which channels carry ACP, and how a replay matches and answers its messages. */
export const acpReplayFacts: ProtocolFacts<'acp', 'ws' | 'stdio' | 'file'> = {
  id: 'acp',
  transports: ['ws', 'stdio', 'file'],
  // Its checker is JSON-RPC's correlator with ACP's methods on top: a request left open is JSON-RPC's finding.
  streamEndRules: [JSON_RPC_RULES.unansweredRequest],
  // A dialect of JSON-RPC; judged by the daemon's session API too over its `/apc` route.
  buildsOn: ['json-rpc', 'pi-rest'],
  schemas: ACP_SCHEMAS,
  classify(hint: ChannelHint): number {
    if (hint.subprotocol === ACP_SUBPROTOCOL) return 1;
    // pi-daemon refuses /apc upgrades without the subprotocol (426), but the path is still ACP.
    if (hint.transport === 'ws' && hint.path !== undefined && APC_PATH.test(hint.path)) return 0.7;
    // ACP's official transport is NDJSON on the agent's stdio, but MCP and Pi RPC run there too:
    // a stdio child's first lines decide (sniff).
    return 0;
  },
  channelEvidence: acpChannelEvidence,
  sniff: sniffAcp,
  messageEvidence: acpMessageEvidence,
  dialectOf: 'json-rpc',
  fields: {
    // JSON-RPC: a response carries its request's id.
    '/id': 'echoed-client-id',
    // session/new's MCP server settings, where clients put API keys.
    '/params/mcpServers/*/env/*/value': 'secret',
    '/params/mcpServers/*/headers/*/value': 'secret',
  },
  // The agent asks its client too (a permission, a file): the client's answer comes when it comes.
  replay: { missAnswers: { message: answerJsonRpcMiss, summary: 'ACP requests get a JSON-RPC error response' }, peerRequest: jsonRpcPeerRequest },
};
