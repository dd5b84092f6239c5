import type { CheckerContext, ProtocolChecker, ProtocolModule } from '../protocol.js';
import { PiRpcChecker } from './checker.js';
import { piRpcSemantic } from './semantic.js';
import { piSessionViews } from './session-view.js';
import { piRpcReplayFacts } from './replay-facts.js';
import { guessPiRpcSender } from './sniff.js';

/** Raw Pi RPC: `pi --mode rpc` JSONL on stdio, or the daemon's `pi-rpc.v1` WebSocket. */
export const piRpcProtocol: ProtocolModule<'pi-rpc'> = {
  ...piRpcReplayFacts,
  title: 'Pi RPC (raw)',
  guessSender: guessPiRpcSender,
  semantic: piRpcSemantic,
  views: piSessionViews('raw'),
  createChecker(context: CheckerContext): ProtocolChecker {
    return new PiRpcChecker(context);
  },
};

export { PiRpcChecker } from './checker.js';
export { CommandLedger, IN_FLIGHT_CAPACITY_ERROR, PARSE_ERROR_COMMAND } from './command-ledger.js';
export { PI_RPC_COMMAND_TYPES, EXTENSION_UI_RESPONSE, isPiRpcCommandType } from './command-types.js';
export { PI_RPC_EVENT_TYPES, isPiRpcEventType } from './event-types.js';
export { ExtensionUiTracker, DIALOG_METHODS, FIRE_AND_FORGET_METHODS, EXTENSION_UI_REQUEST } from './extension-ui.js';
export { PI_RPC_RULES, findingFor, type Rule } from './rules.js';
export {
  PI_RPC_COMMAND_REF,
  PI_RPC_RESPONSE_REF,
  PI_RPC_EVENT_REF,
  PI_RPC_EXTENSION_UI_RESPONSE_REF,
  rawSchemaRef,
} from './schema-refs.js';
export { schemaVerdict } from './schema-verdict.js';
export { PI_RPC_SUBPROTOCOL, PI_DAEMON_RPC_SUBPROTOCOL, piSubprotocolOf } from './subprotocols.js';
export { idKey } from './json.js';
