import type { MessageMissContext } from '../miss-answer.js';
import { isJsonObject } from '../../core/json.js';

/** A command on the daemon's unix socket that matched nothing gets an `ok: false` response with code `replay_miss`. */
export function answerNdjsonMiss(value: unknown, context: MessageMissContext): unknown {
  if (!isJsonObject(value) || typeof value.operation !== 'string') return undefined;
  return {
    protocolVersion: typeof value.protocolVersion === 'string' ? value.protocolVersion : '1.0',
    kind: 'response',
    requestId: value.requestId,
    ...(context.hostInstanceId ? { hostInstanceId: context.hostInstanceId } : {}),
    ...(typeof value.sessionId === 'string' ? { sessionId: value.sessionId } : {}),
    ok: false,
    error: { code: 'replay_miss', message: context.message, retryable: false },
  };
}
