import { warning, type Finding } from '../../core/finding.js';
import { isJsonObject } from '../../core/json.js';
import { OPENAI_RULES as RULES } from './rules.js';

/**
 * What OpenAI-compatible servers send that the OpenAI description does not allow but the official `openai` SDK
 * takes as it takes OpenAI's own answers (docs/verdicts.md#openai-compatible-servers, each with its source). A
 * schema error there would fail an agent's CI for what every client accepts, so it is one warning instead,
 * `openai-compatible-drift`, naming the drift (once per message and drift). What breaks the SDK (a tool call fragment without `index`, which
 * it silently drops) stays an error.
 */

const FINISH_REASON = /^\/choices\/(\d+)\/finish_reason$/;
const ANSWERS = new Set(['CreateChatCompletionStreamResponse', 'CreateChatCompletionResponse']);

/** The schema findings of a message of definition `def`, with those of a tolerated drift made one warning each. */
export function tolerateCompatibleDrift(findings: Finding[], value: unknown, def: string): Finding[] {
  if (findings.length === 0 || !isJsonObject(value)) return findings;
  const kept: Finding[] = [];
  const drifts = new Map<string, Finding>();
  for (const finding of findings) {
    const drift = driftOf(finding, value, def);
    if (drift === undefined) kept.push(finding);
    else if (!drifts.has(drift.message)) drifts.set(drift.message, drift);
  }
  return [...kept, ...drifts.values()];
}

function driftOf(finding: Finding, value: Record<string, unknown>, def: string): Finding | undefined {
  if (finding.rule !== 'schema') return undefined;
  // TGI's `eos_token`, OpenRouter's `error`, Together's model-specific reasons: the SDK hands any string on.
  const finish = FINISH_REASON.exec(finding.pointer);
  if (ANSWERS.has(def) && finish) {
    const choice = Array.isArray(value.choices) ? value.choices[Number(finish[1])] : undefined;
    const reason = isJsonObject(choice) ? choice.finish_reason : undefined;
    if (typeof reason === 'string') return warning(RULES.compatibleDrift, finding.pointer, `finish_reason '${reason}' is not one the OpenAI description names (an OpenAI-compatible server's own); the openai SDK passes it on`);
  }
  if (def !== 'ErrorResponse') return undefined;
  // vLLM's error code is the HTTP status as a number: the SDK's APIError carries it as its `code`.
  const error = value.error;
  if (finding.pointer === '/error/code' && isJsonObject(error) && typeof error.code === 'number') {
    return warning(RULES.compatibleDrift, '/error/code', `the error's code is a number (${error.code}), not a string (vLLM's form); the openai SDK raises its APIError with it as its code`);
  }
  // OpenRouter's error mid-stream has a code and a message only: the SDK raises its APIError with that message.
  if (finding.pointer === '/error' && isJsonObject(error) && typeof error.message === 'string' && /missing required property '(type|param)'/.test(finding.message)) {
    return warning(RULES.compatibleDrift, '/error', "the error has no `type` or `param` (OpenRouter's form); the openai SDK raises its APIError with its message");
  }
  // Older vLLM put the error's fields at the top level: the SDK still raises its APIError for the status, the body as its message.
  if (finding.pointer === '' && error === undefined && typeof value.message === 'string') {
    return warning(RULES.compatibleDrift, '', "the error's fields are at the top level, not in an `error` object (older vLLM's form); the openai SDK raises its APIError for the status, with the body as its message");
  }
  return undefined;
}
