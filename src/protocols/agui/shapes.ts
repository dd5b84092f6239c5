import { isJsonObject, type JsonObject } from '../../core/json.js';

/** The three members every SDK agrees a RunAgentInput has: string threadId and runId, array messages. */
export interface RunAgentInputLike extends JsonObject {
  threadId: string;
  runId: string;
  messages: unknown[];
}

export function isRunAgentInput(value: unknown): value is RunAgentInputLike {
  return (
    isJsonObject(value) &&
    typeof value.threadId === 'string' &&
    typeof value.runId === 'string' &&
    Array.isArray(value.messages)
  );
}

/** A value as it may appear inside a finding's sentence: strings quoted as the client does, others as JSON. */
export function show(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '(absent)';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
