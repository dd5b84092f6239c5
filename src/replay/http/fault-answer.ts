import { STATUS_CODES, type ServerResponse } from 'node:http';
import { jsonAnswer } from '../../protocols/miss-answer.js';
import type { FaultAnswers, InjectedFault } from '../../protocols/fault-answers.js';
import type { ReplayContext } from '../replay-context.js';
import { FAULT_INJECTED, faultStatusMessage } from '../fault/fault-notice.js';

/**
 * The answer a `status` fault sends in place of the recorded one: that status and an error naming
 * the spec, so a test that sees it knows which `--fault` it came from; in the error shape of the
 * request's protocol when it has one (an OpenAI error object), else the replay's own JSON error.
 * With `retry-after`, the headers a provider's rate limit carries: `retry-after` in whole seconds
 * (rounded up), and `retry-after-ms` too when that is not exact (the official SDKs read it first);
 * with `should-retry`, `x-should-retry`, which those SDKs obey whatever the status.
 */
export function sendFaultStatus(res: ServerResponse, status: number, spec: string, answers: FaultAnswers | undefined, retry: { retryAfterMs?: number; shouldRetry?: boolean } = {}): void {
  const headers = {
    ...(retry.retryAfterMs === undefined ? {} : retryAfterHeaders(retry.retryAfterMs)),
    ...(retry.shouldRetry === undefined ? {} : { 'x-should-retry': String(retry.shouldRetry) }),
  };
  const fault: InjectedFault = { status, spec, message: faultStatusMessage(status, spec) };
  const answer = answers?.http?.(fault) ?? jsonAnswer(status, { error: { code: FAULT_INJECTED, message: fault.message, fault: spec } });
  res.writeHead(answer.status, STATUS_CODES[answer.status] ?? 'Error', { ...answer.headers, ...headers });
  res.end(answer.body);
}

function retryAfterHeaders(ms: number): Record<string, string> {
  const seconds = Math.ceil(ms / 1000);
  return seconds * 1000 === ms ? { 'retry-after': String(seconds) } : { 'retry-after': String(seconds), 'retry-after-ms': String(ms) };
}

/**
 * Holds an answer the replay makes up (a status fault, a miss) for a latency fault, on the
 * replay's clock. Stops early when the client goes (resolves false: nothing to answer) or the
 * replay shuts down (resolves true: the answer goes now, on a connection that closes after it).
 */
export async function holdAnswer(context: ReplayContext, res: ServerResponse, ms: number): Promise<boolean> {
  if (ms <= 0) return true;
  const stopped = new AbortController();
  const stop = () => stopped.abort();
  const untrack = context.track(() => {
    res.shouldKeepAlive = false;
    stop();
  });
  res.once('close', stop);
  try {
    await context.clock.sleep(ms, stopped.signal);
  } finally {
    untrack();
    res.off('close', stop);
  }
  return !res.destroyed && !res.writableEnded;
}
