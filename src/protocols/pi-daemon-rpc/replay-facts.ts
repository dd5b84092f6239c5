import type { ChannelHint, ProtocolFacts } from '../protocol.js';
import { PI_DAEMON_RPC_SUBPROTOCOL, piSubprotocolOf } from '../pi-rpc/subprotocols.js';
import { answerPiDaemonRpcMiss } from './replay-miss.js';
import { piDaemonRpcPeerRequest } from './peer-request.js';
import { PI_DAEMON_SCHEMAS } from '../pi-rest/schemas.js';
import { PI_DAEMON_RPC_RULES } from './rules.js';
import { frameKindOf } from './frame-kinds.js';
import { sniffPiDaemonFrame } from './sniff.js';

/** Which channels carry the Pi daemon's framed RPC, and how a replay matches and answers its frames. */
export const piDaemonRpcReplayFacts: ProtocolFacts<'pi-daemon-rpc', 'ws' | 'file'> = {
  id: 'pi-daemon-rpc',
  family: 'pi-daemon',
  transports: ['ws', 'file'],
  streamEndRules: [PI_DAEMON_RPC_RULES.treeNavigateUnanswered.id, PI_DAEMON_RPC_RULES.replayGapWithoutAttachReady.id],
  // Its frames carry Pi RPC's commands, responses and events; its frames are defined in the session API.
  buildsOn: ['pi-rpc', 'pi-rest'],
  schemas: PI_DAEMON_SCHEMAS,
  classify(hint: ChannelHint): number {
    return hint.transport === 'ws' && piSubprotocolOf(hint.subprotocol) === PI_DAEMON_RPC_SUBPROTOCOL ? 1 : 0;
  },
  channelEvidence: (hint) => `WebSocket subprotocol ${hint.subprotocol ?? PI_DAEMON_RPC_SUBPROTOCOL}`,
  sniff: sniffPiDaemonFrame,
  messageEvidence: (value) => `Pi daemon RPC ${frameKindOf(value) ?? 'frame'} frame`,
  fields: {
    // The framed command's id comes back on its response frame.
    '/command/id': 'echoed-client-id',
    '/id': 'echoed-client-id',
    // A tree navigation's correlationId, minted by the client, comes back on its result frame.
    '/correlationId': 'echoed-client-id',
    timestamp: 'volatile',
    // A response frame's own id, and the id of the extension UI request the client's
    // extension_ui_response answers (the daemon's, sent back as served).
    '/response/id': 'server-id',
  },
  replay: { missAnswers: { message: answerPiDaemonRpcMiss, summary: 'Pi daemon RPC commands get a failed response frame' }, peerRequest: piDaemonRpcPeerRequest },
};
