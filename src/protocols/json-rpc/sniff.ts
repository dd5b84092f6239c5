import { isJsonObject } from '../../core/json.js';
import { classifyJsonRpc } from './json-rpc-message.js';

/**
 * A lone JSON-RPC 2.0 message: `jsonrpc: "2.0"` and the members of a request, notification or
 * response. A low score, so that any dialect (ACP) claims what is its own.
 */
export function sniffJsonRpc(value: unknown): number {
  return isJsonObject(value) && value.jsonrpc === '2.0' && classifyJsonRpc(value).kind !== 'other' ? 0.5 : 0;
}

/** What made sniffJsonRpc claim a message, for `show`. */
export function jsonRpcMessageEvidence(value: unknown): string {
  const shape = classifyJsonRpc(value);
  return shape.kind === 'request' || shape.kind === 'notification' ? `JSON-RPC ${shape.kind} ${shape.method}` : `JSON-RPC ${shape.kind}`;
}
