import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Answers what the HTTP parser cannot read (a broken request line or header) with a 400 and closes
 * the connection, or drops a socket that can no longer be written: a peer's bad bytes end that
 * connection, never the server.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (_error, socket: Socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
}
