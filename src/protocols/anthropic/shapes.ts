import { isJsonObject } from '../../core/json.js';
import { blockApiMarker, chatRequestScores } from '../chat-request-dialect.js';
import type { AnthropicEndpoint } from './routes.js';

/** The events of a streamed Messages answer, by their `type` (the SSE `event:` name is the same). */
const STREAM_EVENTS = new Set(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop', 'ping', 'error']);

/** A stream event of the Messages API, by its type and the fields that type cannot do without. */
export function isStreamEvent(value: unknown): boolean {
  if (!isJsonObject(value) || typeof value.type !== 'string' || !STREAM_EVENTS.has(value.type)) return false;
  switch (value.type) {
    case 'message_start':
      return isJsonObject(value.message) && value.message.type === 'message';
    case 'content_block_start':
    case 'content_block_delta':
    case 'content_block_stop':
      return typeof value.index === 'number';
    case 'message_delta':
      return isJsonObject(value.delta);
    case 'error':
      return isJsonObject(value.error);
    default:
      return true;
  }
}

/** A Message (a plain answer). */
export function isMessage(value: unknown): boolean {
  return isJsonObject(value) && value.type === 'message' && value.role === 'assistant' && Array.isArray(value.content);
}

/** The answer of count_tokens: `{input_tokens}` and nothing of a Message. */
function isTokenCount(value: unknown): boolean {
  return isJsonObject(value) && typeof value.input_tokens === 'number' && !('type' in value) && !('output_tokens' in value);
}

/** A Messages request, told apart from an OpenAI chat request by what only one of the two has (chat-request-dialect.ts). */
function requestScore(value: unknown): number {
  if (!isJsonObject(value) || typeof value.model !== 'string' || !Array.isArray(value.messages) || 'type' in value) return 0;
  // Bedrock's and Vertex AI's bodies name the API version in the body.
  if ('anthropic_version' in value) return 0.95;
  return chatRequestScores(value).blocks;
}

/** The route a lone message belongs to, by its shape, when no path says (a file handed to validate). */
export function endpointOfValue(value: unknown): AnthropicEndpoint | undefined {
  if (isMessage(value) || isStreamEvent(value)) return 'messages';
  if (isTokenCount(value)) return 'count_tokens';
  if (isJsonObject(value) && typeof value.model === 'string' && Array.isArray(value.messages)) return typeof value.max_tokens === 'number' ? 'messages' : 'count_tokens';
  return undefined;
}

/** How sure (0..1) a lone message is the Messages API's, by its shape. */
export function sniffAnthropic(value: unknown): number {
  if (!isJsonObject(value)) return 0;
  if (isMessage(value) && typeof value.id === 'string') return 0.95;
  if (isStreamEvent(value)) {
    // A lone ping or error object says little; Pi's events have message_start too, but not with a Message inside.
    if (value.type === 'ping' || value.type === 'error') return 0.5;
    return 0.95;
  }
  return requestScore(value);
}

/** What made sniffAnthropic claim a lone message, for `show`. */
export function anthropicMessageEvidence(value: unknown): string {
  if (!isJsonObject(value)) return 'Anthropic message';
  if (isMessage(value)) return 'Anthropic Message';
  if (isStreamEvent(value)) return `Anthropic stream event ${String(value.type)}`;
  const marker = blockApiMarker(value);
  return `Anthropic Messages request (model, messages, ${marker ?? 'max_tokens'})`;
}

/** Requests come from the client; everything else from the server. */
export function guessAnthropicSender(value: unknown): 'client' | 'server' {
  return isJsonObject(value) && typeof value.model === 'string' && Array.isArray(value.messages) && !('type' in value) ? 'client' : 'server';
}
