import { isJsonObject } from '../../core/json.js';
import { chatRequestScores, roleApiMarker } from '../chat-request-dialect.js';
import { looksLikeRequest, type OpenAiEndpoint } from './routes.js';

/** A chat completion stream chunk, by its `object`. */
export function isChatChunk(value: unknown): boolean {
  return isJsonObject(value) && value.object === 'chat.completion.chunk';
}

/** A Responses stream event: a `response.*` type with a sequence number. */
export function isResponseEvent(value: unknown): boolean {
  return isJsonObject(value) && typeof value.type === 'string' && (value.type.startsWith('response.') || value.type === 'error') && typeof value.sequence_number === 'number';
}

/** The route a lone message belongs to, by its shape, when no path says (a file handed to validate). */
export function endpointOfValue(value: unknown): OpenAiEndpoint | undefined {
  if (!isJsonObject(value)) return undefined;
  if (value.object === 'chat.completion' || isChatChunk(value) || looksLikeRequest('chat', value)) return 'chat';
  if (value.object === 'response' || isResponseEvent(value)) return 'responses';
  if (value.object === 'list' && Array.isArray(value.data)) {
    const first: unknown = value.data[0];
    if (isJsonObject(first) && first.object === 'embedding') return 'embeddings';
    if (isJsonObject(first) && first.object === 'model') return 'models';
  }
  return undefined;
}

/** How sure (0..1) a lone message is OpenAI's, by its shape. */
export function sniffOpenAi(value: unknown): number {
  if (!isJsonObject(value)) return 0;
  if (value.object === 'chat.completion.chunk' || value.object === 'chat.completion') return 0.95;
  if (value.object === 'response' && typeof value.id === 'string' && Array.isArray(value.output)) return 0.9;
  if (isResponseEvent(value)) return 0.9;
  if (endpointOfValue(value) === 'embeddings' || endpointOfValue(value) === 'models') return 0.8;
  // Anthropic's Messages requests have model and messages too: what only one of the two has decides.
  if (looksLikeRequest('chat', value)) return 'anthropic_version' in value ? 0 : chatRequestScores(value).roles;
  return 0;
}

/** What made sniffOpenAi claim a lone message, for `show`. */
export function openAiMessageEvidence(value: unknown): string {
  if (!isJsonObject(value)) return 'OpenAI message';
  if (typeof value.object === 'string') return `OpenAI object ${value.object}`;
  if (isResponseEvent(value)) return `OpenAI Responses event ${String(value.type)}`;
  const marker = roleApiMarker(value);
  return `OpenAI chat completion request (model, messages${marker === undefined ? '' : `, ${marker}`})`;
}

/** Requests come from the client; everything else from the server. */
export function guessOpenAiSender(value: unknown): 'client' | 'server' {
  return isJsonObject(value) && typeof value.model === 'string' && (Array.isArray(value.messages) || 'input' in value) && !('object' in value) ? 'client' : 'server';
}
