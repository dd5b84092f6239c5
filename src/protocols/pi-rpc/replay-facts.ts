import type { ChannelHint, ReplayFacts } from '../protocol.js';
import { answerPiRpcMiss } from './replay-miss.js';
import { PI_RPC_SUBPROTOCOL, piSubprotocolOf } from './subprotocols.js';

/**
 * Stdio is shared with ACP (JSON-RPC over stdio), so a stdio channel is only a moderate
 * claim; sniffing the first line decides.
 */
const STDIO_SCORE = 0.5;

/** Which channels carry raw Pi RPC, and how a replay matches and answers its lines. */
export const piRpcReplayFacts: ReplayFacts = {
  id: 'pi-rpc',
  classify(hint: ChannelHint): number {
    if (hint.transport === 'ws') return piSubprotocolOf(hint.subprotocol) === PI_RPC_SUBPROTOCOL ? 1 : 0;
    if (hint.transport === 'stdio') return STDIO_SCORE;
    return 0;
  },
  // A command's optional `id` comes back on its response.
  replay: { volatileFields: ['/id', 'timestamp'], echoFields: ['/id'], missAnswers: { message: answerPiRpcMiss, summary: 'Pi RPC commands get a failed response' } },
};
