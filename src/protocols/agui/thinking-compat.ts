import type { JsonObject } from '../../core/json.js';

/**
 * The client's compatibility boundary for reasoning (`src/middleware/compatibility-boundary.ts`):
 * the retired THINKING_* events read as the REASONING_* events that replaced them. THINKING events
 * carry no ids; the client mints random ones, this mints `thinking-1`, `thinking-message-1` … so
 * that the same stream always reads the same.
 */
export class ThinkingTranslator {
  private span = 0;
  private message = 0;
  private openMessage: string | undefined;

  /** The event as the client applies it: a THINKING_* one translated, any other as it is. */
  translate(type: string, ev: JsonObject): JsonObject {
    switch (type) {
      case 'THINKING_START':
        return { ...ev, type: 'REASONING_START', messageId: `thinking-${++this.span}` };
      case 'THINKING_END':
        return { ...ev, type: 'REASONING_END', messageId: `thinking-${this.span}` };
      case 'THINKING_TEXT_MESSAGE_START':
        this.openMessage = `thinking-message-${++this.message}`;
        return { ...ev, type: 'REASONING_MESSAGE_START', messageId: this.openMessage, role: 'reasoning' };
      case 'THINKING_TEXT_MESSAGE_CONTENT':
        return { ...ev, type: 'REASONING_MESSAGE_CONTENT', messageId: this.openMessage ?? `thinking-message-${++this.message}` };
      case 'THINKING_TEXT_MESSAGE_END': {
        const messageId = this.openMessage;
        this.openMessage = undefined;
        return { ...ev, type: 'REASONING_MESSAGE_END', messageId };
      }
      default:
        return ev;
    }
  }
}
