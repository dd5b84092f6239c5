import { classifyJsonRpc } from '../json-rpc/index.js';
import type { CheckerContext, ProtocolChecker, ProtocolModule } from '../protocol.js';
import { ACP_METHODS } from './acp-methods.js';
import { AcpChecker } from './acp-checker.js';
import { acpSemantic } from './semantic.js';
import { acpViews } from './session-view.js';
import { senderFor } from './method-table.js';
import { acpChannelEvidence, acpReplayFacts } from './replay-facts.js';
import { isJsonObject } from '../../core/json.js';

/**
 * The ACP method a JSON-RPC request or notification calls, when ACP defines it. MCP shares one
 * name, `initialize`: ACP's carries a numeric `protocolVersion`, MCP's a date string.
 */
function acpMethodOf(value: unknown): string | undefined {
  if (!isJsonObject(value) || value.jsonrpc !== '2.0') return undefined;
  const shape = classifyJsonRpc(value);
  if (shape.kind !== 'request' && shape.kind !== 'notification') return undefined;
  if (ACP_METHODS.get(shape.method) === undefined) return undefined;
  if (shape.method === 'initialize' && !(isJsonObject(value.params) && typeof value.params.protocolVersion === 'number')) return undefined;
  return shape.method;
}

/** Agent Client Protocol: JSON-RPC 2.0 between an editor (client) and an agent (server). */
export const acpProtocol: ProtocolModule<'acp'> = {
  ...acpReplayFacts,
  title: 'Agent Client Protocol (JSON-RPC 2.0)',

  /**
   * A JSON-RPC request or notification of a method ACP defines is ACP's; a response, or a method ACP
   * does not define, is plain JSON-RPC (the json-rpc module's) until an ACP method says otherwise.
   */
  sniff(value: unknown): number {
    return acpMethodOf(value) === undefined ? 0 : 0.95;
  },
  messageEvidence: (value) => `ACP method ${acpMethodOf(value) ?? '(none)'}`,
  channelEvidence: acpChannelEvidence,
  dialectOf: 'json-rpc',
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
