/**
 * Pi daemon stand-in: a real HTTP + WebSocket server that behaves like pi-daemon v0.3.0's
 * session API (docs/pi-daemon-notes.md §1.3–1.6), answering with the bodies of our own scenario
 * (pi-daemon/scenario.ts), shaped like the daemon's.
 *
 * - REST: /v1/capabilities, /v1/session (list/create), /v1/session/{ref} (get/put/delete),
 *   /v1/ticket/{id} (queued → running → succeeded across polls), /v1/ticket?method&target.
 * - WS /v1/session/{ref}/rpc: `pi-daemon-rpc.v1` (framed) or `pi-rpc.v1` (raw), first offered in
 *   client order; none → HTTP 426. `?generation=<stale>` → 409 before the upgrade. Commands are
 *   answered at once, or in the order of a `commandScript`, with the daemon's in-flight limit.
 * - WS /v1/session/{ref}/apc: `agent-client-protocol.v1`, a real ACP agent (AgentSideConnection).
 *
 * A session `agent-a` (name `fixture-agent`, env FIXTURE_ENV) exists from the start unless
 * `seedSession: false`.
 */
import { createServer } from 'node:http';
import { unlink } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { piScenario } from './pi-daemon/scenario.js';
import { listenOn, sendJson, type Listen } from './pi-daemon/http-util.js';
import { handleRest } from './pi-daemon/rest.js';
import { chooseProtocol, handleUpgrade, routeOf } from './pi-daemon/rpc.js';
import { DaemonState, splitSpec, type PiReceived, type RpcCommandScript, type SessionRecord } from './pi-daemon/state.js';

export type { PiReceived, PiReceivedHttp, PiReceivedWs, RpcCommandScript } from './pi-daemon/state.js';
export type { Listen as PiDaemonListen } from './pi-daemon/http-util.js';
export { ACP_PROTOCOL, FRAMED_PROTOCOL, RAW_PROTOCOL } from './pi-daemon/rpc.js';

export interface PiDaemonOptions {
  /** Service bearer (default 'test-token'). */
  token?: string;
  /** TCP on 127.0.0.1 (port 0 by default) or a unix socket path. */
  listen?: Listen;
  /** Deliberate bug for secret-leak tests: the first env value appears in session resources as `spec.settings.debugEnv`. */
  leakEnv?: boolean;
  /** After a prompt's events, the server closes the issuing RPC connection with this code (e.g. 4001) and reason. */
  closeCodeAfterPrompt?: number | { code: number; reason?: string };
  /** Delay before each streamed RPC event / ACP session/update (default 0). */
  eventDelayMs?: number;
  /**
   * GET polls until a ticket succeeds (default 2: poll 1 → running, poll 2 → succeeded, with the
   * operation applied then). 0 = tickets are already succeeded in the 202.
   */
  ticketPollsToSucceed?: number;
  /** Observers get `controller_required` for non-read-only commands, like the daemon (default false: any role may prompt). */
  enforceRoles?: boolean;
  /**
   * When RPC commands are answered, per connection (default: each at once). A held answer keeps its
   * command in flight, and the stand-in rejects a command over `maxInFlightCommandsPerConnection` (8)
   * held ones with `rpc_in_flight_capacity`, id-less in framed mode, as the daemon does.
   */
  commandScript?: RpcCommandScript;
  /**
   * A prompt's turn waits for an extension's confirm dialog (an `extension_ui_request` event every
   * attachment sees): only the controller's answer is taken and starts the turn; an observer's is
   * refused with `controller_required`, an unknown id with `unknown_ui_request` (default false).
   */
  confirmBeforeTurn?: boolean;
  /** The confirm dialog of `confirmBeforeTurn` gets a random id (`ui-<uuid>`), another each run, rather than `ui-1` (default false). */
  mintDialogIds?: boolean;
  /** Which scenario turn a prompt streams: 'tool-call' (default; 27 events) or 'text' (16 events). */
  rpcTurn?: 'tool-call' | 'text';
  /** Pre-create session agent-a (default true). */
  seedSession?: boolean;
  /** Fixed hostInstanceId, counter-based uuids/ticket ids and a fake clock (default false). */
  deterministic?: boolean;
  hostInstanceId?: string;
}

export interface PiDaemon {
  /** `http://127.0.0.1:PORT` or `unix:/path/to.sock`. */
  url: string;
  /** `ws://127.0.0.1:PORT` or `ws+unix:///path/to.sock:` — append `/v1/session/<ref>/rpc`. */
  wsUrl: string;
  port: number | undefined;
  socketPath: string | undefined;
  token: string;
  hostInstanceId: string;
  /** The seeded session id ('agent-a'), or undefined with seedSession: false. */
  sessionId: string | undefined;
  /** Everything received: HTTP requests (incl. upgrade attempts) and WebSocket connections with their messages. */
  received: PiReceived;
  close(): Promise<void>;
}

export const SEEDED_SESSION_ID = 'agent-a';

export async function startPiDaemon(options: PiDaemonOptions = {}): Promise<PiDaemon> {
  const scenario = piScenario();
  const closeAfter = options.closeCodeAfterPrompt;
  const state = new DaemonState(
    {
      token: options.token ?? 'test-token',
      leakEnv: options.leakEnv ?? false,
      closeCodeAfterPrompt:
        closeAfter === undefined ? undefined : typeof closeAfter === 'number' ? { code: closeAfter, reason: 'stand-in closing after prompt' } : { code: closeAfter.code, reason: closeAfter.reason ?? '' },
      eventDelayMs: options.eventDelayMs ?? 0,
      ticketPollsToSucceed: options.ticketPollsToSucceed ?? 2,
      enforceRoles: options.enforceRoles ?? false,
      rpcTurn: options.rpcTurn ?? 'tool-call',
      deterministic: options.deterministic ?? false,
      commandScript: options.commandScript,
      confirmBeforeTurn: options.confirmBeforeTurn ?? false,
      mintDialogIds: options.mintDialogIds ?? false,
    },
    scenario,
    options.hostInstanceId,
  );

  let sessionId: string | undefined;
  if (options.seedSession ?? true) {
    const template = scenario.session;
    const { env } = splitSpec(scenario.createRequest.spec as Record<string, unknown>);
    const at = state.now();
    const seeded: SessionRecord = {
      sessionId: template.sessionId as string,
      name: template.name as string | undefined,
      generation: 1,
      revision: 1,
      createdAt: at,
      updatedAt: at,
      lastUsedAt: at,
      spec: structuredClone(template.spec as Record<string, unknown>),
      env,
    };
    state.sessions.set(seeded.sessionId, seeded);
    sessionId = seeded.sessionId;
  }

  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (protocols, req) => chooseProtocol(routeOf(req), protocols) ?? false,
  });

  const server = createServer((req, res) => {
    handleRest(state, req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: String(err) });
      else res.destroy();
    });
  });
  server.on('upgrade', (req, socket, head) => handleUpgrade(state, wss, req, socket, head));

  const listen = options.listen ?? { port: 0 };
  if ('path' in listen) await unlink(listen.path).catch(() => undefined);
  await listenOn(server, listen);
  const address = server.address();
  const port = typeof address === 'object' && address ? (address as AddressInfo).port : undefined;
  const socketPath = 'path' in listen ? listen.path : undefined;
  const host = 'host' in listen && listen.host ? listen.host : '127.0.0.1';

  return {
    url: socketPath ? `unix:${socketPath}` : `http://${host}:${port}`,
    wsUrl: socketPath ? `ws+unix://${socketPath}:` : `ws://${host}:${port}`,
    port,
    socketPath,
    token: state.settings.token,
    hostInstanceId: state.hostInstanceId,
    sessionId,
    received: state.received,
    close: async () => {
      state.closing = true;
      const clients = [...wss.clients];
      await Promise.all(
        clients.map(
          (ws) =>
            new Promise<void>((resolve) => {
              if (ws.readyState === ws.CLOSED) return resolve();
              const timer = setTimeout(() => {
                ws.terminate();
                resolve();
              }, 200);
              ws.once('close', () => {
                clearTimeout(timer);
                resolve();
              });
              ws.close(1001, 'server stopping');
            }),
        ),
      );
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
