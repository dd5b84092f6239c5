import { createServer, Agent, type Server } from 'node:http';
import { chmodSync, lstatSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { listenUrl, type ListenAddress, type TargetAddress } from './addresses.js';
import type { CaptureContext } from './capture-context.js';
import { forwardHttp } from './http-forwarder.js';
import { HeaderRedactor } from './redaction.js';
import type { TrafficRecorder } from './traffic-recorder.js';
import { relayUpgrade } from './ws-relay.js';

export interface ProxyServer {
  readonly url: string;
  readonly server: Server;
  /** Stops accepting, closes open streams and sockets, and resolves when all are gone. */
  close(): Promise<void>;
}

export interface ProxyServerOptions {
  listen: ListenAddress;
  target: TargetAddress;
  recorder: TrafficRecorder;
  redactHeaders?: readonly string[];
}

/** The listening side of `proxy record`: HTTP requests are forwarded, upgrades relayed. */
export async function startProxyServer(options: ProxyServerOptions): Promise<ProxyServer> {
  const closers = new Set<() => void>();
  const agent = new Agent({ keepAlive: true });
  const context: CaptureContext = {
    target: options.target,
    recorder: options.recorder,
    redactor: new HeaderRedactor(options.redactHeaders),
    agent,
    track(closer) {
      closers.add(closer);
      return () => closers.delete(closer);
    },
  };
  const server = createServer((req, res) => forwardHttp(req, res, context));
  // Agent streams can be silent for minutes; the proxy must not time them out on its own.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 5_000;
  server.on('upgrade', (req, socket: Socket, head: Buffer) => relayUpgrade(req, socket, head, context));
  server.on('clientError', (_error, socket: Socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await listen(server, options.listen);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : undefined;
  const url = listenUrl(options.listen, port);

  let closing: Promise<void> | undefined;
  return {
    url,
    server,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const close of [...closers]) close();
        server.closeIdleConnections();
        // Whatever is still open after the streams were told to end gets cut after a grace period.
        const timer = setTimeout(() => {
          for (const socket of sockets) socket.destroy();
        }, 2_000);
        timer.unref();
      }).then(() => {
        agent.destroy();
        if (options.listen.kind === 'unix') rmSync(options.listen.socketPath, { force: true });
      });
      return closing;
    },
  };
}

function listen(server: Server, address: ListenAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const done = () => {
      server.off('error', reject);
      resolve();
    };
    if (address.kind === 'unix') {
      // A stale socket file from a crashed run would make listen fail with EADDRINUSE;
      // anything that is not a socket is left alone and the error reported.
      if (isSocketFile(address.socketPath)) rmSync(address.socketPath, { force: true });
      server.listen(address.socketPath, () => {
        chmodSync(address.socketPath, 0o600);
        done();
      });
    } else server.listen(address.port, address.host, done);
  });
}

function isSocketFile(path: string): boolean {
  try {
    return lstatSync(path).isSocket();
  } catch {
    return false;
  }
}
