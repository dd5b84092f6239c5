import { classifyJsonRpc } from '../json-rpc/json-rpc-message.js';
import { ACP_METHODS } from './acp-methods.js';
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

/**
 * A JSON-RPC request or notification of a method ACP defines is ACP's; a response, or a method ACP
 * does not define, is plain JSON-RPC (the json-rpc module's) until an ACP method says otherwise.
 */
export function sniffAcp(value: unknown): number {
  return acpMethodOf(value) === undefined ? 0 : 0.95;
}

/** What made sniffAcp claim a message, for `show`. */
export function acpMessageEvidence(value: unknown): string {
  return `ACP method ${acpMethodOf(value) ?? '(none)'}`;
}
