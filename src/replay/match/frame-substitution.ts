import type { encode as EncodeEvent } from '@ag-ui/proto';
import type { BaseEvent } from '@ag-ui/core';
import type { Substitution } from '../../match/correlation.js';
import type { ReplayScript, ScriptMessage } from '../replay-script.js';

/** The AG-UI protobuf encoder: a large module, which only a recording with protobuf streams needs. */
let encodeEvent: typeof EncodeEvent | undefined;

/** Whether serving `script` may re-encode a protobuf frame (it has some): then loadProtoEncoder() first. */
export function needsProtoEncoder(script: ReplayScript): boolean {
  return script.exchanges.some((exchange) => exchange.messages.some((message) => message.channel === 'proto'));
}

/** Loads the encoder substituteMessage() needs for protobuf frames. */
export async function loadProtoEncoder(): Promise<void> {
  encodeEvent ??= (await import('@ag-ui/proto')).encode;
}

/**
 * A recorded stream message with the live ids in place. Text (JSON bodies, SSE frames) is rewritten
 * token by token; a protobuf frame has no JSON tokens, so it is re-encoded from its recorded value
 * when, and only when, that value contains an echoed id.
 */
export function substituteMessage(message: ScriptMessage, substitution: Substitution): Buffer {
  if (substitution.size === 0) return message.raw;
  if (message.channel !== 'proto') return substitution.apply(message.raw);
  if (message.json === undefined) return message.raw;
  const replaced = substitution.applyValue(message.json);
  if (JSON.stringify(replaced) === JSON.stringify(message.json)) return message.raw;
  if (!encodeEvent) throw new Error('a protobuf frame is to be re-encoded before loadProtoEncoder() was awaited');
  const payload = encodeEvent(replaced as BaseEvent);
  const frame = Buffer.alloc(4 + payload.length);
  frame.writeUInt32BE(payload.length, 0);
  frame.set(payload, 4);
  return frame;
}
