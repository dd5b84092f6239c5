import { encode } from '@ag-ui/proto';
import type { BaseEvent } from '@ag-ui/core';
import type { Substitution } from './correlation.js';
import type { ScriptMessage } from '../replay-script.js';

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
  const payload = encode(replaced as BaseEvent);
  const frame = Buffer.alloc(4 + payload.length);
  frame.writeUInt32BE(payload.length, 0);
  frame.set(payload, 4);
  return frame;
}
