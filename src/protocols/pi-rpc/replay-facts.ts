import type { ChannelHint, ProtocolFacts } from '../protocol.js';
import { answerPiRpcMiss } from './replay-miss.js';
import { piRpcPeerRequest } from './peer-request.js';
import { PI_RPC_SUBPROTOCOL, piSubprotocolOf } from './subprotocols.js';
import { PI_DAEMON_SCHEMAS } from '../pi-rest/schemas.js';
import { PI_RPC_RULES } from './rules.js';
import { piRpcMessageEvidence, sniffPiRpc } from './sniff.js';

/**
 * Which channels carry raw Pi RPC, and how a replay matches and answers its lines. Stdio is anybody's
 * (ACP and MCP run over it too): a stdio child's first lines decide (sniff).
 */
export const piRpcReplayFacts: ProtocolFacts<'pi-rpc', 'ws' | 'stdio' | 'file'> = {
  id: 'pi-rpc',
  transports: ['ws', 'stdio', 'file'],
  streamEndRules: [PI_RPC_RULES.commandUnanswered.id],
  // Its commands and events are defined in the Pi daemon's session API.
  buildsOn: ['pi-rest'],
  schemas: PI_DAEMON_SCHEMAS,
  classify(hint: ChannelHint): number {
    if (hint.transport === 'ws') return piSubprotocolOf(hint.subprotocol) === PI_RPC_SUBPROTOCOL ? 1 : 0;
    return 0;
  },
  channelEvidence: (hint) => `WebSocket subprotocol ${hint.subprotocol ?? PI_RPC_SUBPROTOCOL}`,
  sniff: sniffPiRpc,
  messageEvidence: piRpcMessageEvidence,
  // A command's optional `id` comes back on its response.
  fields: { '/id': 'echoed-client-id', timestamp: 'volatile' },
  replay: { missAnswers: { message: answerPiRpcMiss, summary: 'Pi RPC commands get a failed response' }, peerRequest: piRpcPeerRequest },
};
