import { isJsonObject } from '../../core/json.js';
import type { SemanticFold } from '../protocol.js';
/**
 * `--semantic` for ACP: the agent streams a message as `session/update` notifications of chunks
 * (`agent_message_chunk`, `agent_thought_chunk`, `user_message_chunk` when a session is loaded),
 * cut wherever the stream happened to be. They fold into the text they build up; every other
 * message is still compared one by one.
 */
export interface AcpStreamResult {
  kind: 'acp-stream';
  /** Runs of chunks of one kind in one session: text joined, other content blocks as they came. */
  messages: Array<{ sessionId: unknown; sessionUpdate: string; messageId?: unknown; content: unknown[] }>;
}

const CHUNKS: ReadonlySet<unknown> = new Set(['agent_message_chunk', 'agent_thought_chunk', 'user_message_chunk']);

/** The `update` of an ACP chunk notification, if this message is one. */
export function acpChunkOf(value: unknown): { sessionId: unknown; update: Record<string, unknown> } | undefined {
  if (!isJsonObject(value) || value.method !== 'session/update' || value.id !== undefined || !isJsonObject(value.params)) return undefined;
  const update = value.params.update;
  return isJsonObject(update) && CHUNKS.has(update.sessionUpdate) ? { sessionId: value.params.sessionId, update } : undefined;
}

export function materializeAcpStream(notifications: readonly unknown[]): AcpStreamResult {
  const messages: AcpStreamResult['messages'] = [];
  let current: AcpStreamResult['messages'][number] | undefined;
  for (const notification of notifications) {
    const chunk = acpChunkOf(notification);
    if (!chunk) continue;
    const kind = String(chunk.update.sessionUpdate);
    // A message id, where the agent sends one, also starts a new message.
    if (!current || current.sessionId !== chunk.sessionId || current.sessionUpdate !== kind || chunk.update.messageId !== undefined) {
      current = { sessionId: chunk.sessionId, sessionUpdate: kind, ...(chunk.update.messageId === undefined ? {} : { messageId: chunk.update.messageId }), content: [] };
      messages.push(current);
    }
    const content = chunk.update.content;
    const last = current.content[current.content.length - 1];
    if (isText(content) && isText(last)) current.content[current.content.length - 1] = { ...last, text: last.text + content.text };
    else current.content.push(content);
  }
  return { kind: 'acp-stream', messages };
}

function isText(value: unknown): value is { type: 'text'; text: string } {
  return isJsonObject(value) && value.type === 'text' && typeof value.text === 'string' && Object.keys(value).length === 2;
}


/** ACP's fold for `diff --semantic`: the chunk notifications of a session's streamed messages. */
export const acpSemantic: SemanticFold = {
  transports: ['ws', 'stdio'],
  folds: (value) => acpChunkOf(value) !== undefined,
  fold: (fed) => materializeAcpStream(fed),
};
