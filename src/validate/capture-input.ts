import type { Sender } from '../core/message.js';
import { toSourceMessage, type SourceMessage, type SourceStream } from './message-source.js';

/** A capture document: `{records:[...]}` as in ../shared/fixtures (http, ws_* and dir/msg records). */
export function isCaptureDocument(value: unknown): value is { records: unknown[] } {
  return value !== null && typeof value === 'object' && Array.isArray((value as { records?: unknown }).records);
}

/**
 * What makes a capture document unusable, naming the record and the field (`record 3:
 * "request.path" must be a string`), or undefined when every record can be read.
 */
export function captureProblem(doc: { records: unknown[] }): string | undefined {
  for (let i = 0; i < doc.records.length; i++) {
    const record = doc.records[i];
    const at = `record ${i + 1}`;
    if (record === null || typeof record !== 'object' || Array.isArray(record)) return `${at} is not an object`;
    if ((record as { kind?: unknown }).kind !== 'http') continue;
    const { request, response } = record as { request?: Record<string, unknown>; response?: Record<string, unknown> };
    if (request === null || typeof request !== 'object') return `${at}: an http record needs "request"`;
    if (response === null || typeof response !== 'object') return `${at}: an http record needs "response"`;
    if (typeof request.method !== 'string') return `${at}: "request.method" must be a string`;
    if (typeof request.path !== 'string') return `${at}: "request.path" must be a string`;
    if (typeof response.status !== 'number') return `${at}: "response.status" must be a number`;
  }
  return undefined;
}

interface HttpRecord {
  kind: 'http';
  request: { method: string; path: string; headers?: Record<string, string>; body?: unknown };
  response: { status: number; headers?: Record<string, string>; body?: unknown };
}

/**
 * Splits a capture into streams: all HTTP records share one stream (REST rules span calls),
 * each WebSocket connection is its own stream with its negotiated subprotocol as the hint,
 * and plain `{dir, msg}` records form one stream.
 */
export function streamsFromCapture(doc: { records: unknown[] }): SourceStream[] {
  const rest: SourceStream = { label: 'http', hint: { transport: 'http' }, messages: [] };
  const plain: SourceStream = { label: 'messages', messages: [] };
  const sockets = new Map<string, SourceStream>();
  let index = 0;
  for (const item of doc.records) {
    const record = item as Record<string, unknown>;
    if (record.kind === 'http') {
      const http = record as unknown as HttpRecord;
      const url = new URL(http.request.path, 'http://capture.invalid');
      const base = { method: http.request.method, path: url.pathname, query: url.searchParams, requestHeaders: http.request.headers ?? {} };
      if (http.request.body !== undefined) {
        rest.messages.push({ value: http.request.body, sender: 'client', index: index++, carrier: 'body', http: base });
      }
      if (http.response.body !== undefined) {
        rest.messages.push({
          value: http.response.body,
          sender: 'server',
          index: index++,
          carrier: 'body',
          http: { ...base, status: http.response.status, responseHeaders: http.response.headers ?? {} },
        });
      }
      continue;
    }
    const conn = typeof record.conn === 'string' ? record.conn : undefined;
    if (conn !== undefined) {
      let stream = sockets.get(conn);
      if (!stream) {
        stream = { label: conn, hint: { transport: 'ws' }, messages: [] };
        sockets.set(conn, stream);
      }
      if (record.kind === 'ws_open') {
        stream.hint = { ...stream.hint!, path: String(record.path ?? '').split('?')[0] };
        const offered = record.offeredSubprotocols;
        if (Array.isArray(offered) && offered.length > 0 && !stream.hint.subprotocol) stream.hint.subprotocol = String(offered[0]);
        if (typeof record.label === 'string') stream.label = `${conn} (${record.label})`;
      } else if (record.kind === 'ws_upgrade') {
        const headers = (record.headers ?? {}) as Record<string, string>;
        const chosen = headers['sec-websocket-protocol'];
        if (chosen) stream.hint = { ...stream.hint!, subprotocol: chosen };
      } else if (record.kind === 'ws') {
        const dir = String(record.dir ?? '');
        const sender: Sender = dir.startsWith('client') ? 'client' : 'server';
        stream.messages.push({ value: record.data, sender, index: index++, carrier: 'frame' });
      }
      continue;
    }
    const message: SourceMessage = { ...toSourceMessage(record, index++), carrier: 'line' };
    plain.messages.push(message);
  }
  return [rest, ...sockets.values(), plain].filter((s) => s.messages.length > 0);
}
