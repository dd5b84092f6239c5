import { isEventType } from './event-types.js';
import { isRunAgentInput } from './shapes.js';
import { isJsonObject } from '../../core/json.js';

/** A lone message: an event whose `type` is an EventType, or a RunAgentInput. */
export function sniffAgui(value: unknown): number {
  if (!isJsonObject(value)) return 0;
  if (isEventType(value.type)) return 0.9;
  if (isRunAgentInput(value)) return 0.9;
  return 0;
}

/** What made sniffAgui claim a message, for `show`. */
export function aguiMessageEvidence(value: unknown): string {
  if (isJsonObject(value) && isEventType(value.type)) return `AG-UI event ${value.type}`;
  return 'RunAgentInput';
}
