import type { PeerRequestRole } from '../protocol.js';
import { EXTENSION_UI_RESPONSE } from './command-types.js';
import { EXTENSION_UI_REQUEST } from './extension-ui.js';
import { idKey } from './json.js';

/** The agent's `extension_ui_request` asks the client; the client's `extension_ui_response` of the same `id` answers it. */
export function piRpcPeerRequest(message: unknown): PeerRequestRole | undefined {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return undefined;
  const record = message as Record<string, unknown>;
  const id = idKey(record.id);
  if (id === undefined) return undefined;
  if (record.type === EXTENSION_UI_REQUEST) return { role: 'request', id };
  if (record.type === EXTENSION_UI_RESPONSE) return { role: 'answer', id };
  return undefined;
}
