import type { HttpContext } from '../core/message.js';
import type { ExchangeFields } from './schema.js';

/** The HTTP facts a checker is given with a stored message, as record gave them: the request's, and for the server's, the answer's. */
export function httpContextOf(e: ExchangeFields, sender: 'client' | 'server'): HttpContext {
  const http: HttpContext = { method: e.method ?? 'GET', path: e.path ?? '/', query: new URLSearchParams(e.query ?? '') };
  if (e.requestHeaders) http.requestHeaders = e.requestHeaders;
  if (sender === 'server') {
    if (e.status !== null) http.status = e.status;
    if (e.responseHeaders) http.responseHeaders = e.responseHeaders;
  }
  return http;
}
