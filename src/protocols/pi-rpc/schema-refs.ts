import type { Sender } from '../../core/message.js';
import { PI_SESSION_API_ID } from '../pi-rest/schemas.js';
import { EXTENSION_UI_RESPONSE } from './command-types.js';
import { isJsonObject } from '../../core/json.js';

export const PI_RPC_COMMAND_REF = `${PI_SESSION_API_ID}#/$defs/piRpcCommand`;
export const PI_RPC_RESPONSE_REF = `${PI_SESSION_API_ID}#/$defs/piRpcResponse`;
export const PI_RPC_EVENT_REF = `${PI_SESSION_API_ID}#/$defs/piRpcEvent`;
/**
 * `piRpcCommand` does not list `extension_ui_response`, yet stock Pi reads it on stdin and the
 * daemon accepts it on `pi-rpc.v1`. The framed frame's inner object is the same shape.
 */
export const PI_RPC_EXTENSION_UI_RESPONSE_REF = `${PI_SESSION_API_ID}#/$defs/rpcExtensionUiResponseFrame/properties/response`;

/** The schema location for one raw Pi RPC message, by who sent it and its `type`. */
export function rawSchemaRef(value: unknown, sender: Sender): string {
  const type = isJsonObject(value) ? value.type : undefined;
  if (sender === 'client') return type === EXTENSION_UI_RESPONSE ? PI_RPC_EXTENSION_UI_RESPONSE_REF : PI_RPC_COMMAND_REF;
  return type === 'response' ? PI_RPC_RESPONSE_REF : PI_RPC_EVENT_REF;
}
