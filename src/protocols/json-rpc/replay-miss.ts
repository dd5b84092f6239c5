import type { MessageMissContext } from '../miss-answer.js';
import { isJsonObject } from '../../core/json.js';

/** JSON-RPC 2.0 error codes (§5.1). */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;

/**
 * A JSON-RPC request that matched nothing gets an error response carrying its id: -32601 when no
 * recorded client message has its method, else -32600; text that is not JSON gets -32700 with id
 * null. Notifications and responses get none (JSON-RPC never answers them).
 */
export function answerJsonRpcMiss(value: unknown, context: MessageMissContext): unknown {
  if (value === undefined) return { jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR, message: context.message } };
  if (!isJsonObject(value) || typeof value.method !== 'string' || value.id === undefined || value.id === null) return undefined;
  const code = context.recordedMethods.has(value.method) ? INVALID_REQUEST : METHOD_NOT_FOUND;
  return { jsonrpc: '2.0', id: value.id, error: { code, message: context.message } };
}
