import { classifyJsonRpc } from '../json-rpc/index.js';
import type { CheckerContext, ProtocolChecker, ProtocolModule } from '../protocol.js';
import { ACP_METHODS } from './acp-methods.js';
import { AcpChecker } from './acp-checker.js';
import { acpSemantic } from './semantic.js';
import { acpViews } from './session-view.js';
import { senderFor } from './method-table.js';
import { acpReplayFacts } from './replay-facts.js';

/** Agent Client Protocol: JSON-RPC 2.0 between an editor (client) and an agent (server). */
export const acpProtocol: ProtocolModule<'acp'> = {
  ...acpReplayFacts,
  title: 'Agent Client Protocol (JSON-RPC 2.0)',

  semantic: acpSemantic,
  views: acpViews,

  /**
   * Requests and notifications go to the side their method's `x-side` names, so the other side
   * sent them; methods either side may call, and unknown or extension methods, are guessed as
   * the client's. A response alone does not say which side answered: it is guessed as the
   * agent's ('server'), since agents answer far more requests. Callers that know the direction
   * (a capture's `dir`) should pass it instead.
   */
  guessSender(value: unknown): 'client' | 'server' {
    const shape = classifyJsonRpc(value);
    if (shape.kind === 'response') return 'server';
    if (shape.kind === 'request' || shape.kind === 'notification') {
      const method = ACP_METHODS.get(shape.method);
      const def = shape.kind === 'request' ? method?.request : method?.notification;
      return (def && senderFor(def.side)) ?? 'client';
    }
    return 'client';
  },

  createChecker(context: CheckerContext): ProtocolChecker {
    return new AcpChecker(context.registry, ACP_METHODS);
  },
};

export { ACP_SUBPROTOCOL } from './replay-facts.js';
export { ACP_METHODS } from './acp-methods.js';
export { AcpChecker } from './acp-checker.js';
export { ACP_RULES } from './acp-rules.js';
export { AcpMethodTable, buildMethodTable, senderFor, type AcpDefRef, type AcpMethod, type AcpSide } from './method-table.js';
