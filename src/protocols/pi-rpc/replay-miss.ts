import type { MessageMissContext } from '../miss-answer.js';
import { isJsonObject } from '../../core/json.js';
import { EXTENSION_UI_RESPONSE } from './command-types.js';

/**
 * A Pi RPC command that matched nothing gets a failed response, as Pi answers a command it cannot
 * run: `{id, type: "response", command: <its type>, success: false, error}`; a line that is not JSON
 * gets Pi's parse error (`command: "parse"`, no id). An extension UI answer gets none (stock Pi sends
 * no acknowledgement).
 */
export function answerPiRpcMiss(value: unknown, context: MessageMissContext): unknown {
  if (!isJsonObject(value)) return { type: 'response', command: 'parse', success: false, error: context.message };
  if (value.type === EXTENSION_UI_RESPONSE) return undefined;
  const command = typeof value.type === 'string' ? value.type : 'unknown';
  return { ...(value.id !== undefined ? { id: value.id } : {}), type: 'response', command, success: false, error: context.message };
}
