import type { InboundMessage } from '../../../src/core/message.js';
import type { Verdict } from '../../../src/core/verdict.js';
import type { SchemaRegistry } from '../../../src/schema/schema-registry.js';
import { MessageJudge } from '../../../src/judge/message-judge.js';
import { SecretTracker } from '../../../src/judge/secret-tracker.js';
import { piRestProtocol } from '../../../src/protocols/pi-rest/index.js';

type Headers = Record<string, string>;

/** A REST exchange: ours in rest-exchanges.ts, or the real daemon's in ../shared (test/conformance/pi-rest-corpus.ts). */
export interface CapturedExchange {
  kind: 'http';
  seq: number;
  label: string;
  request: { method: string; path: string; headers: Headers; body?: unknown; bodyBase64?: string; verdict?: { def: string; valid: boolean } };
  response: { status: number; headers: Headers; body?: unknown; bodyBase64?: string; verdict?: { def: string; valid: boolean } };
}

/** A fresh checker wrapped the way the recorder wraps it. */
export function newJudge(registry: SchemaRegistry): { judge: MessageJudge; secrets: SecretTracker } {
  const secrets = new SecretTracker();
  const checker = piRestProtocol.createChecker({ registry, secrets });
  return { judge: new MessageJudge(checker, secrets), secrets };
}

/** Splits a captured `path?query` the way the capture layer hands it over. */
function splitPath(pathWithQuery: string): { path: string; query?: URLSearchParams } {
  const q = pathWithQuery.indexOf('?');
  if (q === -1) return { path: pathWithQuery };
  return { path: pathWithQuery.slice(0, q), query: new URLSearchParams(pathWithQuery.slice(q + 1)) };
}

export function requestMessage(method: string, pathWithQuery: string, headers: Headers, body: unknown): InboundMessage {
  return {
    sender: 'client',
    carrier: 'body',
    value: body,
    text: JSON.stringify(body),
    http: { method, ...splitPath(pathWithQuery), requestHeaders: headers },
  };
}

export function responseMessage(
  method: string,
  pathWithQuery: string,
  requestHeaders: Headers,
  status: number,
  body: unknown,
  responseHeaders: Headers = { 'content-type': 'application/json; charset=utf-8' },
): InboundMessage {
  return {
    sender: 'server',
    carrier: 'body',
    value: body,
    text: JSON.stringify(body),
    http: { method, ...splitPath(pathWithQuery), status, requestHeaders, responseHeaders },
  };
}

/** Judges one exchange: the request body (when there is one), then the response body (when there is one). */
export function judgeExchange(
  judge: MessageJudge,
  x: { method: string; path: string; requestHeaders?: Headers; requestBody?: unknown; status: number; responseBody?: unknown },
): { request?: Verdict; response?: Verdict } {
  const headers = x.requestHeaders ?? {};
  const out: { request?: Verdict; response?: Verdict } = {};
  if (x.requestBody !== undefined) out.request = judge.judge(requestMessage(x.method, x.path, headers, x.requestBody));
  if (x.responseBody !== undefined) out.response = judge.judge(responseMessage(x.method, x.path, headers, x.status, x.responseBody));
  return out;
}

export function clone<T>(value: T): T {
  return structuredClone(value);
}
