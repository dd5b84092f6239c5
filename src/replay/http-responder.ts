import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../capture/proxy-answers.js';
import { HttpMatcher, type LiveRequest } from './http-matcher.js';
import { playRecordedResponse } from './recorded-response.js';
import { reportMiss, type ReplayContext, type ReplayMiss } from './replay-context.js';
import { httpExchanges } from './replay-script.js';

/**
 * The HTTP side of the replay server: reads each request in full, matches it to a recorded
 * exchange and plays that exchange back; a miss gets a 404 that explains itself, or is forwarded
 * to the real upstream with `--on-miss passthrough`.
 */
export function createHttpResponder(context: ReplayContext): (req: IncomingMessage, res: ServerResponse) => void {
  const matcher = new HttpMatcher(httpExchanges(context.script), context.ignore, context.reuse);
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      respond(matcher, context, req, Buffer.concat(chunks), res).catch((error: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { error: { code: 'replay_failed', message: error instanceof Error ? error.message : String(error) } });
        else res.destroy();
      });
    });
  };
}

async function respond(matcher: HttpMatcher, context: ReplayContext, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  const request: LiveRequest = {
    method: req.method ?? 'GET',
    path: queryAt < 0 ? url : url.slice(0, queryAt),
    query: queryAt < 0 ? '' : url.slice(queryAt + 1),
    body,
  };
  const result = matcher.match(request);
  if (result.kind === 'miss') {
    const miss: ReplayMiss = { transport: 'http', ...result.miss, action: context.onMiss };
    reportMiss(context, miss);
    if (context.passthrough) context.passthrough.forwardHttp(req, body, res);
    else sendJson(res, 404, { error: { code: 'replay_miss', message: missMessage(miss), ...result.miss } });
    return;
  }
  const { exchange, reused, redacted } = result;
  context.ledger.markUsed(exchange.id);
  const played = await playRecordedResponse(exchange, { req, body, res }, context);
  context.log.served({
    exchangeId: exchange.id,
    transport: exchange.transport,
    method: request.method,
    path: request.path,
    status: exchange.status ?? undefined,
    messages: played.messages,
    substitutions: played.substitutions,
    redacted,
    reused,
  });
}

/** One readable sentence about a miss, for logs and the 404 body. */
export function missMessage(miss: ReplayMiss): string {
  const what = `${miss.request.method} ${miss.request.path}${miss.request.query ? '?' + miss.request.query : ''}`;
  if (miss.reason === 'exhausted') return `${what}: every recorded answer for this request was used (exchange ${miss.nearest?.exchangeId} last); --reuse serves it again`;
  if (!miss.nearest) return `${what} matches no recorded exchange`;
  const differs = miss.differences.length > 0 ? `; differs in ${miss.differences.join(', ')}` : '';
  return `${what} matches no recorded exchange; nearest is exchange ${miss.nearest.exchangeId} (${miss.nearest.method} ${miss.nearest.path})${differs}`;
}
