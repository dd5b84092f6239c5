import type { PeerRequestRole } from '../protocol.js';
import { piRpcPeerRequest } from '../pi-rpc/peer-request.js';

/** Pi RPC's extension dialogs inside the daemon's frames: the request in an `event` frame, the answer in an `extension_ui_response` frame. */
export function piDaemonRpcPeerRequest(message: unknown): PeerRequestRole | undefined {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return undefined;
  const frame = message as Record<string, unknown>;
  if (frame.kind === 'event') return piRpcPeerRequest(frame.event);
  if (frame.kind === 'extension_ui_response') return piRpcPeerRequest(frame.response);
  return undefined;
}
