import { isJsonObject } from '../../core/json.js';
import type { SchemaRegistry } from '../../schema/schema-registry.js';
import type { OpenAiEndpoint } from './routes.js';
import { OPENAI_SCHEMA_ID } from './schemas.js';

/*
 * Which definition of the derived description judges a message: the request by its route, a plain
 * answer by its route (or ErrorResponse for an error), each stream message by its kind. Never the
 * union of all of them, whose errors would say nothing.
 */

const REQUEST_DEFS: Partial<Record<OpenAiEndpoint, string>> = { chat: 'CreateChatCompletionRequest', responses: 'CreateResponse', embeddings: 'CreateEmbeddingRequest' };
const ANSWER_DEFS: Record<OpenAiEndpoint, string> = { chat: 'CreateChatCompletionResponse', responses: 'Response', embeddings: 'CreateEmbeddingResponse', models: 'ListModelsResponse' };

/** What to judge a message by: a `$def` name, or why it is not judged by one. */
export type DefChoice = { readonly def: string } | { readonly none: string };

export function requestDef(endpoint: OpenAiEndpoint): DefChoice {
  const def = REQUEST_DEFS[endpoint];
  return def ? { def } : { none: `GET ${endpoint} has no request body` };
}

/** A plain (not streamed) answer: ErrorResponse for an error status or an `error` object, else the route's. */
export function answerDef(endpoint: OpenAiEndpoint, status: number | undefined, value: unknown): DefChoice {
  if ((status !== undefined && status >= 400) || (isJsonObject(value) && isJsonObject(value.error))) return { def: 'ErrorResponse' };
  return { def: ANSWER_DEFS[endpoint] };
}

/** One chat stream chunk: a chunk, or the error object a server streams instead. */
export function chatChunkDef(value: unknown): DefChoice {
  return isJsonObject(value) && isJsonObject(value.error) ? { def: 'ErrorResponse' } : { def: 'CreateChatCompletionStreamResponse' };
}

const eventDefsByRegistry = new WeakMap<SchemaRegistry, ReadonlyMap<string, string>>();

/**
 * The definition of each Responses stream event, by its `type`, read from the members of
 * ResponseStreamEvent in the loaded document (each member's `type` has one allowed value).
 */
function eventDefs(registry: SchemaRegistry): ReadonlyMap<string, string> {
  let found = eventDefsByRegistry.get(registry);
  if (found) return found;
  const map = new Map<string, string>();
  const defs = registry.documents.get(OPENAI_SCHEMA_ID)?.json.$defs;
  const union = isJsonObject(defs) && isJsonObject(defs.ResponseStreamEvent) ? defs.ResponseStreamEvent.anyOf : undefined;
  for (const member of Array.isArray(union) ? union : []) {
    const ref = isJsonObject(member) && typeof member.$ref === 'string' ? member.$ref : undefined;
    const name = ref?.startsWith('#/$defs/') ? ref.slice('#/$defs/'.length) : undefined;
    const def = name !== undefined && isJsonObject(defs) ? defs[name] : undefined;
    const type = isJsonObject(def) && isJsonObject(def.properties) && isJsonObject(def.properties.type) ? def.properties.type : undefined;
    const values = type && Array.isArray(type.enum) ? type.enum : type && 'const' in type ? [type.const] : [];
    for (const value of values) if (typeof value === 'string' && name !== undefined) map.set(value, name);
  }
  found = map;
  eventDefsByRegistry.set(registry, found);
  return found;
}

/** One Responses stream event, by its `type`. */
export function responseEventDef(registry: SchemaRegistry, value: unknown): DefChoice {
  const type = isJsonObject(value) ? value.type : undefined;
  if (typeof type !== 'string') return { def: 'ResponseStreamEvent' };
  const def = eventDefs(registry).get(type);
  return def ? { def } : { none: `Responses stream event '${type}' is not in the pinned OpenAI API description (2.3.0)` };
}

export function refOf(def: string): string {
  return `${OPENAI_SCHEMA_ID}#/$defs/${def}`;
}
