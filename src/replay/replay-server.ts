import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ListenTls } from '../net/listen-tls.js';
import type { Socket } from 'node:net';
import { listenUrl, type ListenAddress } from '../net/addresses.js';
import { InFlight } from '../net/in-flight.js';
import { GracefulShutdown } from '../net/graceful-shutdown.js';
import { createHttpResponder } from './http/http-responder.js';
import { listenOn } from '../net/listen-on.js';
import { answerClientErrors } from '../net/client-errors.js';
import type { ReplayContext } from './replay-context.js';
import type { replayUpgrade as ReplayUpgrade } from './ws/ws-player.js';
import { wsExchanges } from './replay-script.js';

/**
 * The WebSocket player, with the ws library: loaded before listening when the recording has WebSocket
 * exchanges or misses pass through, and otherwise only when an upgrade arrives, so that a replay of
 * HTTP alone starts without it.
 */
let wsPlayer: typeof ReplayUpgrade | undefined;

export async function loadWsPlayer(): Promise<typeof ReplayUpgrade> {
  return (wsPlayer ??= (await import('./ws/ws-player.js')).replayUpgrade);
}

export function upgradeLater(req: IncomingMessage, socket: Socket, head: Buffer, context: ReplayContext): void {
  // Until the player has it, a reset must not crash the replay (the player adds the same listener).
  socket.on('error', () => {});
  loadWsPlayer().then(
    (replayUpgrade) => replayUpgrade(req, socket, head, context),
    () => socket.destroy(),
  );
}

export interface ReplayServer {
  /** `http://host:port` or `unix:/path`. */
  readonly url: string;
  /** `ws://host:port`, or `ws+unix:///path:` (the ws package's form) for a unix socket. */
  readonly wsUrl: string;
  readonly server: Server;
  /** The context every handler shares (with `track` wired to this server's shutdown). */
  readonly context: ReplayContext;
  /** Stops accepting, ends open streams and connections, and resolves when they are gone. */
  close(): Promise<void>;
}

/** The listening side of `proxy replay`: HTTP requests go to the HTTP responder, upgrades to the WebSocket player. */
export async function startReplayServer(listen: ListenAddress, init: Omit<ReplayContext, 'track'>, listenTls?: ListenTls): Promise<ReplayServer> {
  const inFlight = new InFlight(init.shutdownGraceMs);
  const context: ReplayContext = {
    ...init,
    track: (stop) => inFlight.add(stop),
  };
  if (wsExchanges(init.script).length > 0 || init.passthrough) await loadWsPlayer();
  const respond = createHttpResponder(context);
  // node:https (and node:tls) load only for a replay that serves TLS.
  const server: Server = listenTls ? process.getBuiltinModule('node:https').createServer({ cert: listenTls.cert, key: listenTls.key }, respond) : createServer(respond);
  // A client that asks before sending its body (Expect: 100-continue) is told at once that the body
  // is over the limit, rather than invited to send megabytes only to have them refused.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    const declared = Number(req.headers['content-length']);
    const refused = Number.isFinite(declared) && declared > context.maxRequestBytes && !context.passthrough;
    if (!refused) res.writeContinue();
    respond(req, res);
  });
  // Replayed streams may be as slow as the recorded ones were: no server-side timeout on them.
  server.requestTimeout = 0;
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => (wsPlayer ? wsPlayer(req, socket, head, context) : upgradeLater(req, socket, head, context)));
  answerClientErrors(server);
  const shutdown = new GracefulShutdown(server, inFlight, listen);

  await listenOn(server, listen);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : undefined;
  const url = listenUrl(listen, port, listenTls !== undefined);
  const wsUrl = listen.kind === 'unix' ? `ws+unix://${listen.socketPath}:` : url.replace(/^http(s?):/, 'ws$1:');

  return {
    url,
    wsUrl,
    server,
    context,
    close: () => shutdown.close(),
  };
}
