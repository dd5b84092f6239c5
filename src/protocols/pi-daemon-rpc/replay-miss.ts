import type { MessageMissContext } from '../miss-answer.js';
import { isJsonObject } from '../../core/json.js';
import { answerPiRpcMiss } from '../pi-rpc/replay-miss.js';

/** The daemon's limit on an apiError message. */
const MAX_MESSAGE_CHARS = 4096;

/**
 * A framed message that matched nothing, answered as the daemon answers on that connection:
 * - a command: a response frame carrying the Pi response (`{kind: "response", response: {id, …,
 *   success: false, error}}`), id echoed;
 * - an extension UI answer: the daemon's acknowledgement, failed;
 * - a tree navigation: its result frame with an error, correlationId echoed.
 * Control frames and anything else get none: the connection is then closed, as before.
 */
export function answerPiDaemonRpcMiss(value: unknown, context: MessageMissContext): unknown {
  if (!isJsonObject(value)) return undefined;
  if (value.kind === 'command' && isJsonObject(value.command)) return { kind: 'response', response: answerPiRpcMiss(value.command, context) };
  if (value.kind === 'extension_ui_response') {
    return { kind: 'response', response: { type: 'response', command: 'extension_ui_response', success: false, error: context.message } };
  }
  if (value.kind === 'tree_navigate' && typeof value.correlationId === 'string') {
    return { kind: 'tree_navigate_result', correlationId: value.correlationId, error: { code: 'replay_miss', message: context.message.slice(0, MAX_MESSAGE_CHARS), retryable: false } };
  }
  return undefined;
}
