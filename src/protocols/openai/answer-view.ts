import { isJsonObject } from '../../core/json.js';
import type { AssembledAnswer } from '../assembled-answer.js';
import type { ProtocolViews, ViewMessage } from '../inspector-views.js';
import { assembleChat, nonEmpty } from './chat-answer.js';
import { assembleResponse } from './responses-answer.js';
import { looksLikeRequest, type OpenAiEndpoint } from './routes.js';
import { endpointOfValue } from './shapes.js';

/**
 * The model's answer of one exchange, assembled (chat completions or Responses, streamed or whole);
 * null for an exchange that holds none (embeddings, the model list, a request never answered).
 * Which API answered is told by the answer's shape, else by the request's.
 */
export function openAiAnswer(messages: Iterable<ViewMessage>): AssembledAnswer | null {
  let request: unknown;
  const answer: unknown[] = [];
  for (const m of messages) {
    if (m.sender === 'client') request ??= m.json;
    else if (m.json !== undefined) answer.push(m.json);
  }
  if (answer.length === 0) return null;
  const requestModel = isJsonObject(request) ? nonEmpty(request.model) : null;
  const endpoint = endpointOfValue(answer[0]) ?? endpointOfRequest(request);
  if (endpoint === 'chat') return assembleChat(answer, requestModel);
  if (endpoint === 'responses') return assembleResponse(answer, requestModel);
  return null;
}

/** The inspector's and `show`'s view of an OpenAI exchange: its answer, assembled. */
export const openAiViews: ProtocolViews = { answer: openAiAnswer };

/**
 * The API a request asked, for an answer that does not say (an error in place of it): chat by its
 * messages, Responses by a field of its own, which an embeddings request (also `input`) never has.
 */
function endpointOfRequest(request: unknown): OpenAiEndpoint | undefined {
  if (looksLikeRequest('chat', request)) return 'chat';
  if (!looksLikeRequest('responses', request) || !isJsonObject(request)) return undefined;
  return ['instructions', 'previous_response_id', 'stream', 'tools', 'reasoning', 'text', 'prompt'].some((key) => key in request) ? 'responses' : undefined;
}
