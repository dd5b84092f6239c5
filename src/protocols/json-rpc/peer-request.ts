import type { PeerRequestRole } from '../protocol.js';
import { classifyJsonRpc, idKey } from './json-rpc-message.js';

/** A JSON-RPC request asks; a response with an id answers the request of that id. */
export function jsonRpcPeerRequest(message: unknown): PeerRequestRole | undefined {
  const shape = classifyJsonRpc(message);
  if (shape.kind === 'request') return { role: 'request', id: idKey(shape.id) };
  if (shape.kind === 'response' && shape.id !== undefined) return { role: 'answer', id: idKey(shape.id) };
  return undefined;
}
