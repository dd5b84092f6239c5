import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A stand-in's server listening on 127.0.0.1. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** Closes the server, ending the connections still open (a stream a test left unread too). */
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 at a free port (rejecting on a listen error), for the HTTP stand-ins. */
export async function listenOnLoopback(server: Server): Promise<LoopbackServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
