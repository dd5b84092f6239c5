import type { ServerResponse } from 'node:http';
import { sendJson } from '../../net/proxy-answers.js';
import type { ReplayContext } from '../replay-context.js';
import { FAULT_INJECTED, faultStatusMessage } from '../fault/fault-notice.js';

/**
 * The answer a `status` fault sends in place of the recorded one: that status and a JSON error
 * naming the spec, so a test that sees it knows which `--fault` it came from.
 */
export function sendFaultStatus(res: ServerResponse, status: number, spec: string): void {
  sendJson(res, status, { error: { code: FAULT_INJECTED, message: faultStatusMessage(status, spec), fault: spec } });
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
