/**
 * The 31 AG-UI event types, as listed by the project schema's `EventType` `$def`
 * (and by `@ag-ui/core@1.0.0`). A test checks this list against the schema, so a schema
 * update that adds a type fails loudly instead of being judged `unknown-event-type`.
 */
export const EVENT_TYPES = [
  'TEXT_MESSAGE_START',
  'TEXT_MESSAGE_CONTENT',
  'TEXT_MESSAGE_END',
  'TEXT_MESSAGE_CHUNK',
  'TOOL_CALL_START',
  'TOOL_CALL_ARGS',
  'TOOL_CALL_END',
  'TOOL_CALL_CHUNK',
  'TOOL_CALL_RESULT',
  'STATE_SNAPSHOT',
  'STATE_DELTA',
  'MESSAGES_SNAPSHOT',
  'ACTIVITY_SNAPSHOT',
  'ACTIVITY_DELTA',
  'RAW',
  'CUSTOM',
  'RUN_STARTED',
  'RUN_FINISHED',
  'RUN_ERROR',
  'STEP_STARTED',
  'STEP_FINISHED',
  'REASONING_START',
  'REASONING_MESSAGE_START',
  'REASONING_MESSAGE_CONTENT',
  'REASONING_MESSAGE_END',
  'REASONING_MESSAGE_CHUNK',
  'REASONING_END',
  'REASONING_ENCRYPTED_VALUE',
  'SUBAGENT_STARTED',
  'SUBAGENT_FINISHED',
  'SUBAGENT_ERROR',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

const EVENT_TYPE_SET: ReadonlySet<string> = new Set(EVENT_TYPES);

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && EVENT_TYPE_SET.has(value);
}

/** `TEXT_MESSAGE_START` → `TextMessageStartEvent`: the `$def` (and `$anchor`) that describes one event type. */
export function defNameOf(type: EventType): string {
  let name = '';
  for (const word of type.split('_')) name += word[0] + word.slice(1).toLowerCase();
  return `${name}Event`;
}
