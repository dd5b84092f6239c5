import type { FaultAnswers, InjectedFault } from '../fault-answers.js';
import { jsonAnswer } from '../miss-answer.js';

/**
 * Anthropic's error types by HTTP status, as its API documents them (docs.anthropic.com, "Errors"):
 * a status not listed is an `invalid_request_error` below 500 and an `api_error` from 500 on.
 */
const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** Anthropic's error object for a status; `fault` names the spec for a reader of the body, and clients ignore it. */
function errorObject(fault: InjectedFault): Record<string, unknown> {
  const type = ERROR_TYPES[fault.status] ?? (fault.status >= 500 ? 'api_error' : 'invalid_request_error');
  return { type, message: `agent-proxy replay: ${fault.message}`, fault: fault.spec };
}

/**
 * How an injected status or stream error looks from Anthropic: the body `{"type":"error","error":{…}}`
 * of its 4xx and 5xx answers, and mid-stream an `error` event with the same data, which the official
 * SDK raises as an APIError of that error's type.
 */
export const anthropicFaultAnswers: FaultAnswers = {
  http: (fault) => jsonAnswer(fault.status, { type: 'error', error: errorObject(fault), request_id: null }),
  streamError: (fault) => `event: error\ndata: ${JSON.stringify({ type: 'error', error: errorObject(fault) })}\n\n`,
};
