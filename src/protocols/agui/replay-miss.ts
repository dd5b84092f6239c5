import type { HttpMissAnswer, MissedHttpRequest, MissFacts } from '../miss-answer.js';

/**
 * A run request that matched nothing, answered as an agent reports a failed run: a `RUN_ERROR` event
 * (`code: "replay_miss"`, the reason as `message`) on a 200 event stream. The official client hands
 * it to the app's `onRunErrorEvent` with the reason as it is; a non-2xx status would instead reject
 * the run with `HTTP 404: <the body as JSON>`, the reason buried in it. SSE even for a protobuf
 * client: the client picks its parser by the response's Content-Type.
 */
export function answerAguiMiss(_request: MissedHttpRequest, miss: MissFacts): HttpMissAnswer {
  const body = Buffer.from(`data: ${JSON.stringify({ type: 'RUN_ERROR', message: miss.message, code: 'replay_miss' })}\n\n`);
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no', 'content-length': String(body.length) },
    body,
  };
}
