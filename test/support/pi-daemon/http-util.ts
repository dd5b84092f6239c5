import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

export const JSON_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

export type Listen = { port?: number; host?: string } | { path: string };

export interface ApiErrorBody {
  code: string;
  message: string;
  retryable?: boolean;
  details?: Record<string, unknown>;
}

export function okEnvelope(requestId: string, hostInstanceId: string, data: unknown): Record<string, unknown> {
  return { apiVersion: '1.0', requestId, hostInstanceId, ok: true, data };
}

export function errorEnvelope(requestId: string, hostInstanceId: string, error: ApiErrorBody): Record<string, unknown> {
  return {
    apiVersion: '1.0',
    requestId,
    hostInstanceId,
    ok: false,
    error: { code: error.code, message: error.message, retryable: error.retryable ?? false, ...(error.details ? { details: error.details } : {}) },
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { ...JSON_HEADERS, ...headers, 'content-length': String(payload.length) });
  res.end(payload);
}

/** Writes a complete HTTP error response on an upgrade socket (the WebSocket handshake is refused), then closes it. */
export function rejectUpgrade(socket: Duplex, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = Buffer.from(JSON.stringify(body));
  const all: Record<string, string> = { ...JSON_HEADERS, connection: 'close', ...headers, 'content-length': String(payload.length) };
  const head = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`, ...Object.entries(all).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n');
  if (socket.destroyed) return;
  socket.end(Buffer.concat([Buffer.from(head, 'latin1'), payload]), () => socket.destroy());
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v;
}

export function listenOn(server: Server, listen: Listen): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const done = () => {
      server.off('error', reject);
      resolve();
    };
    if ('path' in listen) server.listen(listen.path, done);
    else server.listen(listen.port ?? 0, listen.host ?? '127.0.0.1', done);
  });
}

export function base64url(input: string | Buffer): string {
  return Buffer.from(input).toString('base64url');
}
