import { jsonAnswer, type HttpMissAnswer, type MissedHttpRequest, type MissFacts } from '../miss-answer.js';

/**
 * A miss as OpenAI answers a request it cannot serve: its error object (`message`, `type`, `param`,
 * `code`) with status 404, which the official SDKs raise as a NotFoundError whose message is the miss
 * report, and do not retry (they retry 408, 409, 429 and 5xx). The report as data rides along in
 * `error.details`, which clients ignore.
 */
export function answerOpenAiMiss(_request: MissedHttpRequest, miss: MissFacts): HttpMissAnswer {
  const error = { message: `agent-proxy replay: ${miss.message}`, type: 'invalid_request_error', param: null, code: 'replay_miss', details: miss.details };
  return jsonAnswer(404, { error }, { 'cache-control': 'no-store' });
}
