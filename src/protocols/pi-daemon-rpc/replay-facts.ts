import type { ChannelHint, ProtocolFacts } from '../protocol.js';
import { PI_DAEMON_RPC_SUBPROTOCOL, piSubprotocolOf } from '../pi-rpc/subprotocols.js';
import { answerPiDaemonRpcMiss } from './replay-miss.js';
import { PI_DAEMON_SCHEMAS } from '../pi-rest/schemas.js';
import { PI_DAEMON_RPC_RULES } from './rules.js';

/** Which channels carry the Pi daemon's framed RPC, and how a replay matches and answers its frames. */
export const piDaemonRpcReplayFacts: ProtocolFacts<'pi-daemon-rpc', 'ws' | 'file'> = {
  id: 'pi-daemon-rpc',
  family: 'pi-daemon',
  transports: ['ws', 'file'],
  streamEndRules: [PI_DAEMON_RPC_RULES.treeNavigateUnanswered.id, PI_DAEMON_RPC_RULES.replayGapWithoutAttachReady.id],
  schemas: PI_DAEMON_SCHEMAS,
  classify(hint: ChannelHint): number {
    return hint.transport === 'ws' && piSubprotocolOf(hint.subprotocol) === PI_DAEMON_RPC_SUBPROTOCOL ? 1 : 0;
  },
  // The response frame's own id, which diff labels; replay echoes the command's.
  idFields: ['/response/id'],
  // The framed command's id comes back on its response frame.
  replay: { volatileFields: ['/command/id', '/id', 'timestamp'], echoFields: ['/command/id', '/id'], missAnswers: { message: answerPiDaemonRpcMiss, summary: 'Pi daemon RPC commands get a failed response frame' } },
};
