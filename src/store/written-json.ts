import type { MessageInput } from './store-types.js';

/**
 * A message's `json` already written as stringifyJson writes it, by whoever made the message (an
 * import, from its line): the writer stores that text instead of writing the value again. Unlike
 * MessageInput.jsonText it is not the wire's text, so it is looked for credentials as any written
 * value is. Kept beside the message rather than in it: no field of the public MessageInput.
 */
const written = new WeakMap<MessageInput, string>();

/** `message`, whose `json` stringifyJson writes as `text` (undefined: not known). */
export function withWrittenJson(message: MessageInput, text: string | undefined): MessageInput {
  if (text !== undefined) written.set(message, text);
  return message;
}

export function writtenJsonOf(message: MessageInput): string | undefined {
  return written.get(message);
}
