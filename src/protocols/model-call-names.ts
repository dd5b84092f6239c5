import { isJsonObject } from '../core/json.js';

/*
 * How `diff --semantic` names a difference in the request of a folded model call, the part the model
 * APIs share (`{request, answer}` results: OpenAI's and Anthropic's folds): the tools offered, the
 * conversation's messages by number and role, and the request's other fields by what they are.
 */

/** ` /a/b` for the rest of a pointer below the part named, or nothing. */
export function pointerTail(rest: readonly string[]): string {
  return rest.length > 0 ? ` /${rest.join('/')}` : '';
}

/** An item of a list in one side of a folded call (`request.messages[2]`), in either result. */
export function itemOfCall(result: unknown, side: string, list: string, index: string): unknown {
  if (!isJsonObject(result) || !isJsonObject(result[side])) return undefined;
  const items = result[side][list];
  return Array.isArray(items) ? items[Number(index)] : undefined;
}

/**
 * Names a difference below the request's field `top`: `the tool "get_weather" offered: parameters`,
 * `the conversation's message 2 (user): content` for a field in `conversation` (its lists of messages),
 * else the field's name in `names` (`the system prompt`) or `the request's <field>`.
 */
export function describeRequestDifference(top: string, rest: readonly string[], a: unknown, b: unknown, names: Readonly<Record<string, string>>, conversation: readonly string[]): string {
  const below = rest.length > 1 ? `: ${rest.slice(1).join('/')}` : '';
  if (top === 'stream') return 'whether the answer streamed';
  if (top === 'tools' && rest.length > 0) return `the tool ${JSON.stringify(rest[0])} offered${below}`;
  if (conversation.includes(top) && rest.length > 0) {
    const message = itemOfCall(a, 'request', top, rest[0]) ?? itemOfCall(b, 'request', top, rest[0]);
    // A message has a role; a Responses input item that is not a message (a function call output) a type.
    const kind = !isJsonObject(message) ? undefined : typeof message.role === 'string' ? message.role : typeof message.type === 'string' ? message.type : undefined;
    return `the conversation's message ${Number(rest[0]) + 1}${kind === undefined ? '' : ` (${kind})`}${below}`;
  }
  return (names[top] ?? `the request's ${top}`) + pointerTail(rest);
}
