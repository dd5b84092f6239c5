import { request } from 'node:http';
import type { RedriveRequest } from './redrive-request.js';

/** How a sent request ended: answered to its end, or the error that cut it (the recorder stored that too). */
export interface SentRequest {
  status: number | undefined;
  headers: Record<string, string | string[] | undefined>;
  /** The answer's body, whole (a stream to its end). */
  body: Buffer;
  /** Set when the connection failed or the answer was cut short. */
  error?: string;
}

/** How a request is followed while its answer comes. */
export interface SendOptions {
  /** The client ends the request itself when this settles, as the recorded client did (a stream it closed before the end). */
  cut?: Promise<void>;
  /** Each chunk of the answer's body as it comes (a stream read while it lasts). */
  onChunk?: (chunk: Buffer) => void;
}

/**
 * Sends one request to the recorder at `base` (`http://host:port`) and waits for the whole answer,
 * a stream to its end: the next request goes once the agent has answered this one. A failure is an
 * outcome, never a throw: the recording holds it, and the diff tells it.
 */
export function sendRequest(base: URL, req: RedriveRequest, { cut, onChunk }: SendOptions = {}): Promise<SentRequest> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let status: number | undefined;
    let headers: SentRequest['headers'] = {};
    let settled = false;
    const settle = (error?: string) => {
      if (settled) return;
      settled = true;
      resolve({ status, headers, body: Buffer.concat(chunks), ...(error === undefined ? {} : { error }) });
    };
    const outgoing = request({ host: base.hostname, port: base.port, method: req.method, path: req.url, headers: headerObject(req.headers), agent: false }, (res) => {
      status = res.statusCode;
      headers = res.headers;
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        onChunk?.(chunk);
      });
      res.on('end', () => settle());
      res.on('aborted', () => settle('the answer was cut short'));
      res.on('error', (error) => settle(error.message));
      res.on('close', () => settle(res.complete ? undefined : 'the answer was cut short'));
    });
    outgoing.on('error', (error) => settle(error.message));
    outgoing.end(req.body);
    void cut?.then(() => {
      // Ended by us, as recorded: not a failure.
      settle();
      outgoing.destroy();
    });
  });
}

/** Name/value pairs as the object http.request takes: a repeated name becomes a list, sent as repeated lines. */
function headerObject(pairs: readonly string[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (let i = 0; i < pairs.length; i += 2) {
    const [name, value] = [pairs[i], pairs[i + 1]];
    const had = out[name];
    out[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value];
  }
  return out;
}
