import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/** Hop-by-hop headers of a refused upgrade that describe the upstream connection, not the answer. */
const CONNECTION_SCOPED = new Set(['keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer']);

/**
 * The header pairs to send the client for an upstream's refusal of an upgrade, in their original
 * order and spelling:
 * - hop-by-hop headers (and those the Connection header names) are dropped, except `Upgrade`, which
 *   a 426 must carry to say what to upgrade to (RFC 9110 §15.5.22);
 * - `Connection` becomes `close` (kept where the upstream put it when it already said `close`),
 *   because the proxy ends the client's socket after the body;
 * - `Content-Length` is the length of the body the proxy read in full (chunked bodies are re-framed).
 */
export function rejectionHeaders(rawHeaders: readonly string[], bodyLength: number): string[] {
  const dropped = new Set(CONNECTION_SCOPED);
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i].toLowerCase() !== 'connection') continue;
    for (const token of rawHeaders[i + 1].split(',')) {
      const name = token.trim().toLowerCase();
      if (name !== 'upgrade' && name !== 'close' && name !== '') dropped.add(name);
    }
  }
  const out: string[] = [];
  let connectionClose = false;
  let contentLength = false;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    const value = rawHeaders[i + 1];
    const lower = name.toLowerCase();
    if (dropped.has(lower)) continue;
    if (lower === 'connection') {
      if (!connectionClose && value.trim().toLowerCase() === 'close') {
        out.push(name, value);
        connectionClose = true;
      }
      continue;
    }
    if (lower === 'content-length') {
      if (contentLength) continue;
      contentLength = true;
      out.push(name, value.trim() === String(bodyLength) ? value : String(bodyLength));
      continue;
    }
    out.push(name, value);
  }
  if (!connectionClose) out.push('Connection', 'close');
  if (!contentLength) out.push('Content-Length', String(bodyLength));
  return out;
}

/**
 * Writes a whole HTTP/1.1 response onto a raw socket that never became a WebSocket, then ends it.
 * Header bytes are written as latin1, the way Node decoded them, so they go out as they came in.
 */
export function writeRawResponse(socket: Duplex, status: number, statusMessage: string | undefined, rawHeaders: readonly string[], body: Buffer): void {
  if (socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  let head = `HTTP/1.1 ${status} ${statusMessage ?? STATUS_CODES[status] ?? ''}\r\n`;
  for (let i = 0; i < rawHeaders.length; i += 2) head += `${rawHeaders[i]}: ${rawHeaders[i + 1]}\r\n`;
  head += '\r\n';
  socket.once('finish', () => socket.destroy());
  socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body]));
}

/** A JSON error answered by the proxy itself (502 upstream unreachable, 400 not a WebSocket upgrade, 503 shutting down). */
export function writeProxyError(socket: Duplex, status: number, code: string, message: string, extra: Record<string, unknown> = {}): Buffer {
  const body = Buffer.from(JSON.stringify({ error: { code, message, ...extra } }));
  writeRawResponse(socket, status, undefined, ['Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(body.length), 'Connection', 'close'], body);
  return body;
}
