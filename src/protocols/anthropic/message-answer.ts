import { isJsonObject } from '../../core/json.js';
import { toolCallOf, type AssembledAnswer, type TokenUsage } from '../assembled-answer.js';
import type { ProtocolViews, ViewMessage } from '../inspector-views.js';
import { assembleMessage, type AssembledMessage } from './message-assembly.js';

/**
 * The model's answer of one Messages exchange, assembled as the SDK's `finalMessage()` does (streamed
 * or whole) into the provider-neutral shape `show` and the inspector print: the text blocks joined,
 * the thinking as its reasoning, each tool use with its input parsed, the stop reason and the tokens.
 * Null for an exchange that holds none (count_tokens, a request never answered).
 */
export function anthropicAnswer(messages: Iterable<ViewMessage>): AssembledAnswer | null {
  let request: unknown;
  const server: unknown[] = [];
  for (const m of messages) {
    if (m.sender === 'client') request ??= m.json;
    else if (m.json !== undefined) server.push(m.json);
  }
  const message = assembleMessage(server);
  if (message === null) return null;
  const requestModel = isJsonObject(request) && typeof request.model === 'string' && request.model !== '' ? request.model : null;
  const blocks = message.blocks;
  return {
    api: 'messages',
    model: message.model ?? requestModel,
    id: message.id,
    streamed: message.streamed,
    chunks: message.events,
    outputs:
      blocks.length === 0 && message.stopReason === null
        ? []
        : [
            {
              index: 0,
              text: blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(''),
              reasoning: blocks.flatMap((b) => (b.type === 'thinking' ? [b.text] : [])).join(''),
              refusal: null,
              toolCalls: blocks.flatMap((b) => (b.input !== '' ? [toolCallOf(b.id, b.name, b.input)] : [])),
              stopReason: message.stopReason,
            },
          ],
    usage: usageOf(message),
    error: message.error === null ? null : errorText(message.error),
    complete: message.complete && message.error === null,
  };
}

/** Tokens in: the prompt's, cached or not (Anthropic counts cache reads and writes apart from `input_tokens`); out: `output_tokens`. */
function usageOf(message: AssembledMessage): TokenUsage | null {
  const usage = message.usage;
  if (usage === null) return null;
  const counts = ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'].map((key) => usage[key]).filter((n): n is number => typeof n === 'number' && Number.isFinite(n));
  const output = usage.output_tokens;
  return { input: counts.length === 0 ? null : counts.reduce((a, b) => a + b, 0), output: typeof output === 'number' && Number.isFinite(output) ? output : null };
}

/** Anthropic's error object (`{type, message}`) as `type: message`, or whatever was sent, as JSON. */
function errorText(error: unknown): string {
  if (isJsonObject(error) && typeof error.message === 'string') return typeof error.type === 'string' ? `${error.type}: ${error.message}` : error.message;
  return typeof error === 'string' ? error : JSON.stringify(error);
}

/** The inspector's and `show`'s view of a Messages exchange: its answer, assembled. */
export const anthropicViews: ProtocolViews = { answer: anthropicAnswer };
