import { parsePointer } from '../../core/field-specs.js';
import { warning, type Finding } from '../../core/finding.js';
import { isJsonObject } from '../../core/json.js';
import { OPENAI_RULES as RULES } from './rules.js';

/**
 * What OpenAI-compatible servers send that the OpenAI description does not allow but the official `openai` SDK
 * takes as it takes OpenAI's own answers (docs/verdicts.md#openai-compatible-servers, each with its source, most
 * confirmed by a real output). A schema error there would fail an agent's CI for what every client accepts, so it
 * is one warning instead, `openai-compatible-drift`, naming the drift (once per exchange and drift). What breaks the
 * SDK (a tool call fragment without `index`, which it silently drops) stays an error.
 */

const FINISH_REASON = /^\/choices\/(\d+)\/finish_reason$/;
const ANSWERS = new Set(['CreateChatCompletionStreamResponse', 'CreateChatCompletionResponse']);
const MISSING = /missing required property '(\w+)'/;

/**
 * Fields of an answer that servers leave out: where (the parent's pointer), which, and who. The SDK reads a left-out
 * field as it reads null (its stream helper copies `finish_reason` only when set; `create` hands the body on).
 */
const LEFT_OUT: ReadonlyArray<{ parent: RegExp; field: string; def: string; what: string }> = [
  { parent: /^\/choices\/\d+$/, field: 'logprobs', def: 'CreateChatCompletionResponse', what: "a choice's `logprobs` is left out (Ollama's and LiteLLM's form)" },
  { parent: /^\/choices\/\d+\/message$/, field: 'refusal', def: 'CreateChatCompletionResponse', what: "the message's `refusal` is left out (vLLM's, Ollama's, LiteLLM's and TGI's form)" },
  { parent: /^\/choices\/\d+\/message$/, field: 'content', def: 'CreateChatCompletionResponse', what: "the message's `content` is left out (TGI's form, when it calls a tool)" },
  { parent: /^\/choices\/\d+$/, field: 'finish_reason', def: 'CreateChatCompletionStreamResponse', what: "a chunk choice's `finish_reason` is left out while it is null (vLLM 0.9's and LiteLLM's form)" },
];

/**
 * Fields of an answer that servers send as null where the description wants a value or nothing. The SDK's stream
 * helper skips a null delta field or tool call fragment field as it skips a missing one; `create` hands it on.
 */
const NULLED: ReadonlyArray<{ pointer: RegExp; what: string }> = [
  { pointer: /^\/system_fingerprint$/, what: '`system_fingerprint` is null (LiteLLM\'s form)' },
  { pointer: /^\/usage\/(prompt|completion)_tokens_details$/, what: "usage's token details are null (vLLM's form)" },
  { pointer: /^\/choices\/\d+\/message\/(tool_calls|function_call|annotations)$/, what: "the message's `tool_calls`, `function_call` or `annotations` is null (vLLM's form)" },
  { pointer: /^\/choices\/\d+\/delta\/(tool_calls|function_call|role)$/, what: "a delta's `tool_calls`, `function_call` or `role` is null" },
  { pointer: /^\/choices\/\d+\/delta\/tool_calls\/\d+\/(id|type|function\/name|function\/arguments)$/, what: "a tool call fragment's id, type, name or arguments is null after the first (TGI's form)" },
];

/**
 * The schema findings of a message of definition `def`, with those of a tolerated drift made one warning each;
 * `reported` holds the drifts an earlier message of the exchange reported, which are not reported again.
 */
export function tolerateCompatibleDrift(findings: Finding[], value: unknown, def: string, reported: Set<string> = new Set()): Finding[] {
  if (findings.length === 0 || !isJsonObject(value)) return findings;
  const kept: Finding[] = [];
  for (const finding of findings) {
    const drift = driftOf(finding, value, def);
    if (drift === undefined) kept.push(finding);
    else if (!reported.has(drift.message)) {
      reported.add(drift.message);
      kept.push(drift);
    }
  }
  return kept;
}

function driftOf(finding: Finding, value: Record<string, unknown>, def: string): Finding | undefined {
  if (finding.rule !== 'schema') return undefined;
  if (ANSWERS.has(def)) return answerDrift(finding, value, def);
  if (def === 'ErrorResponse') return errorDrift(finding, value);
  return undefined;
}

function answerDrift(finding: Finding, value: Record<string, unknown>, def: string): Finding | undefined {
  // TGI's `eos_token`, OpenRouter's `error`, Together's model-specific reasons: the SDK hands any string on.
  const finish = FINISH_REASON.exec(finding.pointer);
  if (finish) {
    const choice = Array.isArray(value.choices) ? value.choices[Number(finish[1])] : undefined;
    const reason = isJsonObject(choice) ? choice.finish_reason : undefined;
    if (typeof reason === 'string') return drift(finding.pointer, `finish_reason '${reason}' is not one the OpenAI description names (an OpenAI-compatible server's own); the openai SDK passes it on`);
  }
  const missing = MISSING.exec(finding.message)?.[1];
  const leftOut = missing === undefined ? undefined : LEFT_OUT.find((l) => l.def === def && l.field === missing && l.parent.test(finding.pointer));
  if (leftOut) return drift(finding.pointer, `${leftOut.what}; the openai SDK reads it as null`);
  const nulled = NULLED.find((n) => n.pointer.test(finding.pointer));
  if (nulled && valueAt(value, finding.pointer) === null) return drift(finding.pointer, `${nulled.what}; the openai SDK takes it as left out`);
  return undefined;
}

function errorDrift(finding: Finding, value: Record<string, unknown>): Finding | undefined {
  // vLLM's, LiteLLM's and llama.cpp's error code is the HTTP status as a number: the SDK's APIError carries it as its `code`.
  const error = value.error;
  if (finding.pointer === '/error/code' && isJsonObject(error) && typeof error.code === 'number') {
    return drift('/error/code', "the error's code is a number, the HTTP status (vLLM's, LiteLLM's and llama.cpp's form), not a string; the openai SDK raises its APIError with it as its code");
  }
  // OpenRouter's error mid-stream and llama.cpp's errors have no `param` (OpenRouter's no `type`): the SDK raises its APIError with the message.
  if (finding.pointer === '/error' && isJsonObject(error) && typeof error.message === 'string' && /missing required property '(type|param)'/.test(finding.message)) {
    return drift('/error', "the error has no `type` or `param` (OpenRouter's and llama.cpp's form); the openai SDK raises its APIError with its message");
  }
  // TGI's error is a string beside its `error_type`: the SDK raises its APIError for the status, with the string as its message.
  if (finding.pointer === '/error' && typeof error === 'string') {
    return drift('/error', "the error is a string, not an object (TGI's form, with `error_type`); the openai SDK raises its APIError for the status, with the string as its message");
  }
  // Older vLLM put the error's fields at the top level: the SDK still raises its APIError for the status, the body as its message.
  if (finding.pointer === '' && error === undefined && typeof value.message === 'string') {
    return drift('', "the error's fields are at the top level, not in an `error` object (vLLM's form before PR #22099); the openai SDK raises its APIError for the status, with the body as its message");
  }
  return undefined;
}

function drift(pointer: string, message: string): Finding {
  return warning(RULES.compatibleDrift, pointer, message);
}

/** The value a schema finding's pointer names in `root` (undefined when it names nothing). */
function valueAt(root: unknown, pointer: string): unknown {
  let at: unknown = root;
  for (const key of parsePointer(pointer)) {
    if (Array.isArray(at)) at = at[Number(key)];
    else if (isJsonObject(at)) at = at[key];
    else return undefined;
  }
  return at;
}
