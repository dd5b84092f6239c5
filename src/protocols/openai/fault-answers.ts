import { isJsonObject } from '../../core/json.js';
import type { FaultAnswers, InjectedFault, StreamPlace } from '../fault-answers.js';
import { jsonAnswer } from '../miss-answer.js';
import { routeOfPath } from './routes.js';

/**
 * OpenAI's error object for a status, as its API sends it: a 429 is `rate_limit_exceeded` of type
 * `requests`, a 5xx a `server_error`, anything else an `invalid_request_error`. `fault` names the
 * spec for a reader of the body; clients ignore it.
 */
function errorObject(fault: InjectedFault): Record<string, unknown> {
  const [type, code] = fault.status === 429 ? ['requests', 'rate_limit_exceeded'] : fault.status >= 500 ? ['server_error', 'server_error'] : ['invalid_request_error', null];
  return { message: `agent-proxy replay: ${fault.message}`, type, param: null, code, fault: fault.spec };
}

/**
 * A failure mid-stream as OpenAI streams it: on chat completions a `data:` event holding only an
 * error object, which the SDKs raise as an APIError; on Responses an `error` event, numbered after
 * the last event sent.
 */
function streamError(fault: InjectedFault, place: StreamPlace): string {
  const error = errorObject(fault);
  if (routeOfPath(place.path)?.endpoint === 'responses') {
    const last = isJsonObject(place.last) && typeof place.last.sequence_number === 'number' ? place.last.sequence_number : -1;
    const event = { type: 'error', code: error.code, message: error.message, param: null, sequence_number: last + 1 };
    return `event: error\ndata: ${JSON.stringify(event)}\n\n`;
  }
  return `data: ${JSON.stringify({ error })}\n\n`;
}

/** How an injected status or stream error looks from OpenAI. */
export const openAiFaultAnswers: FaultAnswers = {
  http: (fault) => jsonAnswer(fault.status, { error: errorObject(fault) }),
  streamError,
};
