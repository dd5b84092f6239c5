import type { CheckerContext, ProtocolChecker, ProtocolModule } from '../protocol.js';
import { PiDaemonRpcChecker } from './checker.js';
import { piDaemonRpcSemantic } from './semantic.js';
import { piSessionViews } from '../pi-rpc/session-view.js';
import { piDaemonRpcReplayFacts } from './replay-facts.js';
import { guessFrameSender } from './frame-kinds.js';
import { DEFAULT_MAX_IN_FLIGHT_COMMANDS, type PiDaemonRpcOptions } from './limits.js';

/** The framed module with a given in-flight limit (the daemon advertises it in its capabilities). */
export function createPiDaemonRpcProtocol(options: PiDaemonRpcOptions = {}): ProtocolModule<'pi-daemon-rpc'> {
  const maxInFlight = options.maxInFlightCommandsPerConnection ?? DEFAULT_MAX_IN_FLIGHT_COMMANDS;
  return {
    ...piDaemonRpcReplayFacts,
    title: 'Pi daemon framed RPC',
    guessSender: guessFrameSender,
    semantic: piDaemonRpcSemantic,
    views: piSessionViews('framed'),
    createChecker(context: CheckerContext): ProtocolChecker {
      return new PiDaemonRpcChecker(context, maxInFlight);
    },
  };
}

/** Pi daemon framed RPC: `/v1/session/{ref}/rpc` with subprotocol `pi-daemon-rpc.v1`. */
export const piDaemonRpcProtocol: ProtocolModule<'pi-daemon-rpc'> = createPiDaemonRpcProtocol();

export { PiDaemonRpcChecker } from './checker.js';
export { PI_DAEMON_RPC_RULES } from './rules.js';
export { FRAME_KINDS, CONTROL_ACTION_SENDERS, SESSION_RPC_FRAME_REF, frameKindOf, frameRef, allowedSenders, guessFrameSender, type FrameKind } from './frame-kinds.js';
export { DEFAULT_MAX_IN_FLIGHT_COMMANDS, type PiDaemonRpcOptions } from './limits.js';
export { sniffPiDaemonFrame } from './sniff.js';
