import { isJsonObject } from '../../core/json.js';
import type { AnthropicEndpoint } from './routes.js';
import { ANTHROPIC_SCHEMA_ID } from './schemas.js';

/*
 * Which definition of the schema judges a message: the request by its route, a plain answer by its
 * route (or ErrorResponse for an error), each stream event by its type. Never a union of all of
 * them, whose errors would say nothing.
 */

const REQUEST_DEFS: Record<AnthropicEndpoint, string> = { messages: 'MessageCreateParams', count_tokens: 'MessageCountTokensParams' };
const ANSWER_DEFS: Record<AnthropicEndpoint, string> = { messages: 'Message', count_tokens: 'MessageTokensCount' };
const EVENT_DEFS: Readonly<Record<string, string>> = {
  message_start: 'MessageStartEvent',
  content_block_start: 'ContentBlockStartEvent',
  content_block_delta: 'ContentBlockDeltaEvent',
  content_block_stop: 'ContentBlockStopEvent',
  message_delta: 'MessageDeltaEvent',
  message_stop: 'MessageStopEvent',
  ping: 'PingEvent',
  error: 'ErrorResponse',
};

/** What to judge a message by: a `$def` name, or why it is not judged by one. */
export type DefChoice = { readonly def: string } | { readonly none: string };

export function requestDef(endpoint: AnthropicEndpoint): DefChoice {
  return { def: REQUEST_DEFS[endpoint] };
}

/** A plain (not streamed) answer: ErrorResponse for an error status or an error object, else the route's. */
export function answerDef(endpoint: AnthropicEndpoint, status: number | undefined, value: unknown): DefChoice {
  if ((status !== undefined && status >= 400) || (isJsonObject(value) && value.type === 'error')) return { def: 'ErrorResponse' };
  return { def: ANSWER_DEFS[endpoint] };
}

/** One stream event, by its `type`; a type the API may add later is not judged by a schema. */
export function eventDef(value: unknown): DefChoice {
  const type = isJsonObject(value) ? value.type : undefined;
  if (typeof type !== 'string') return { def: 'MessageStartEvent' };
  const def = EVENT_DEFS[type];
  return def ? { def } : { none: `Messages stream event '${type}' is not one the documented API sends` };
}

export function refOf(def: string): string {
  return `${ANTHROPIC_SCHEMA_ID}#/$defs/${def}`;
}
