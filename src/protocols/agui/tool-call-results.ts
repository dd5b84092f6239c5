import type { FindingSink } from './finding-sink.js';
import { RULES } from './rules.js';
import { show } from './shapes.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';

/**
 * P4: a TOOL_CALL_RESULT answers a tool call the conversation knows: one started on this stream
 * (TOOL_CALL_START, or the first TOOL_CALL_CHUNK once expanded), or one an assistant message of the
 * input carries in its `toolCalls` (the RunAgentInput, `RUN_STARTED.input`, a MESSAGES_SNAPSHOT).
 * The 1.0.0 client does not check it (notes §2.2, "Not checked") and keeps the result as a tool
 * message that follows no call, so it is a warning. Calls are remembered for the whole stream, not
 * per run: a later run of a replayed history may answer an earlier run's call.
 */
export class ToolCallResults {
  private readonly known = new Set<unknown>();

  /** Remembers the tool calls of a message list (the input's, or a snapshot's). */
  addMessages(messages: unknown): void {
    if (!Array.isArray(messages)) return;
    for (const message of messages) {
      if (!isJsonObject(message) || !Array.isArray(message.toolCalls)) continue;
      for (const call of message.toolCalls) if (isJsonObject(call) && typeof call.id === 'string') this.known.add(call.id);
    }
  }

  /** Follows one verified event (from the wire or synthesised from a chunk). */
  see(ev: JsonObject, type: string, sink: FindingSink): void {
    switch (type) {
      case 'TOOL_CALL_START':
        this.known.add(ev.toolCallId);
        return;
      case 'RUN_STARTED':
        if (isJsonObject(ev.input)) this.addMessages(ev.input.messages);
        return;
      case 'MESSAGES_SNAPSHOT':
        this.addMessages(ev.messages);
        return;
      case 'TOOL_CALL_RESULT': {
        const id = ev.toolCallId;
        // A missing or non-string id is the schema's finding, not this one.
        if (typeof id !== 'string' || this.known.has(id)) return;
        sink.warning(
          RULES.P4,
          sink.at('toolCallId'),
          `TOOL_CALL_RESULT for tool call '${show(id)}', which no TOOL_CALL_START on this stream started and no message of the input carries; the client keeps it as a result of no call`,
        );
        return;
      }
      default:
        return;
    }
  }
}
