import { Duplex } from 'node:stream';

/**
 * A plain Duplex over a socket, so that whatever reads it (a TLS server socket) reads through the
 * stream, bytes already read and put back with unshift() included, and not from the socket's handle
 * underneath, which would skip them. Back-pressure goes both ways; the end, a close and an error
 * pass through.
 */
export function streamDuplex(socket: Duplex): Duplex {
  const duplex = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk: Buffer, _encoding, callback) {
      socket.write(chunk, callback);
    },
    final(callback) {
      socket.end();
      callback();
    },
    destroy(error, callback) {
      socket.destroy();
      callback(error);
    },
  });
  socket.on('data', (chunk: Buffer) => {
    if (!duplex.push(chunk)) socket.pause();
  });
  socket.on('end', () => duplex.push(null));
  socket.on('error', (error: Error) => duplex.destroy(error));
  socket.on('close', () => duplex.destroy());
  return duplex;
}
