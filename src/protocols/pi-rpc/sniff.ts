import { EXTENSION_UI_RESPONSE, isPiRpcCommandType } from './command-types.js';
import { isPiRpcEventType } from './event-types.js';
import { isJsonObject } from '../../core/json.js';

/** Score for a lone message that has the shape of raw Pi RPC. */
const SURE = 0.9;

/**
 * How sure we are that a lone parsed value is a raw Pi RPC line. Envelopes of other protocols
 * (JSON-RPC's `jsonrpc`, framed `kind`, unix-ndjson's `protocolVersion`) are never raw Pi RPC.
 */
export function sniffPiRpc(value: unknown): number {
  if (!isJsonObject(value)) return 0;
  if ('jsonrpc' in value || 'kind' in value || 'protocolVersion' in value) return 0;
  const type = value.type;
  if (isPiRpcCommandType(type) || isPiRpcEventType(type)) return SURE;
  if (type === EXTENSION_UI_RESPONSE && 'id' in value) return SURE;
  if (type === 'response' && typeof value.command === 'string') return SURE;
  return 0;
}

/** What made sniffPiRpc claim a line, for `show`: `Pi RPC command get_state`, `Pi RPC response to prompt`. */
export function piRpcMessageEvidence(value: unknown): string {
  if (!isJsonObject(value)) return 'Pi RPC line';
  const type = value.type;
  if (type === 'response' && typeof value.command === 'string') return `Pi RPC response to ${value.command}`;
  if (isPiRpcCommandType(type) || type === EXTENSION_UI_RESPONSE) return `Pi RPC command ${String(type)}`;
  return `Pi RPC event ${String(type)}`;
}

/**
 * Commands and extension UI answers come from the client; responses and events from the agent.
 * A type we do not know is a client command when it carries an `id` (an unknown command, which
 * Pi answers with "Unknown command"): the only events with an id are bash_execution_update and
 * extension_ui_request, both known.
 */
export function guessPiRpcSender(value: unknown): 'client' | 'server' {
  if (!isJsonObject(value)) return 'server';
  const type = value.type;
  if (isPiRpcCommandType(type) || type === EXTENSION_UI_RESPONSE) return 'client';
  if (type === 'response' || isPiRpcEventType(type)) return 'server';
  return 'id' in value ? 'client' : 'server';
}
