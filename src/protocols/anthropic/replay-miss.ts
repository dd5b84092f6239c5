import { jsonAnswer, type HttpMissAnswer, type MissedHttpRequest, type MissFacts } from '../miss-answer.js';

/**
 * A miss as Anthropic answers a request it cannot serve: its error shape, `{"type": "error", "error":
 * {"type", "message"}}`, with status 404 (`not_found_error`), which the official SDK raises as a
 * NotFoundError whose message carries the miss report, and does not retry (it retries 408, 409, 429
 * and 5xx). The report as data rides along in `error.details`, which clients ignore.
 */
export function answerAnthropicMiss(_request: MissedHttpRequest, miss: MissFacts): HttpMissAnswer {
  const error = { type: 'not_found_error', message: `agent-proxy replay: ${miss.message}`, details: miss.details };
  return jsonAnswer(404, { type: 'error', error, request_id: null }, { 'cache-control': 'no-store', 'x-should-retry': 'false' });
}
