/**
 * Adapter between a `ws` WebSocket and the ACP SDK's `Stream` ({readable, writable} of JSON-RPC
 * messages): one JSON-RPC message per text frame, as pi-daemon's `/v1/session/{ref}/apc` speaks it.
 *
 * Works on both ends:
 *   server: `new AgentSideConnection((conn) => agent, acpStreamFromWebSocket(ws))` in a `wss` connection handler;
 *   client: `new ClientSideConnection(() => client, acpStreamFromWebSocket(new WebSocket(url, 'agent-client-protocol.v1')))`.
 * A client socket that is still CONNECTING is fine: writes wait for `open`. If the handshake fails
 * (e.g. a 426), the readable errors and the connection's pending requests reject with that error.
 */
import { WebSocket, type RawData } from 'ws';
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';

export interface AcpStreamHooks {
  /** Called with each parsed incoming message (before the SDK sees it). */
  onIncoming?(message: AnyMessage): void;
  /** Called with each outgoing message (before it is sent). */
  onOutgoing?(message: AnyMessage): void;
}

function rawToString(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function waitForOpen(ws: WebSocket): Promise<void> {
  if (ws.readyState === WebSocket.OPEN) return Promise.resolve();
  if (ws.readyState !== WebSocket.CONNECTING) return Promise.reject(new Error('ACP WebSocket is closed'));
  return new Promise((resolve, reject) => {
    const onOpen = () => {
      cleanup();
      resolve();
    };
    const onClose = () => {
      cleanup();
      reject(new Error('ACP WebSocket closed before open'));
    };
    const cleanup = () => {
      ws.off('open', onOpen);
      ws.off('close', onClose);
    };
    ws.on('open', onOpen);
    ws.on('close', onClose);
  });
}

export function acpStreamFromWebSocket(ws: WebSocket, hooks: AcpStreamHooks = {}): Stream {
  // ws throws an unhandled 'error' event without a listener; the readable reports it instead.
  let readableDone = false;
  const readable = new ReadableStream<AnyMessage>({
    start(controller) {
      const finish = () => {
        ws.off('message', onMessage);
        ws.off('close', onClose);
      };
      const onMessage = (data: RawData) => {
        if (readableDone) return;
        let value: unknown;
        // A frame that is not a JSON object is dropped without a word: the test that sent it reads
        // what the peer did next, and the test run's output is vitest's report only.
        try {
          value = JSON.parse(rawToString(data));
        } catch {
          return;
        }
        if (!isRecord(value)) return;
        hooks.onIncoming?.(value as AnyMessage);
        controller.enqueue(value as AnyMessage);
      };
      const onClose = () => {
        finish();
        if (readableDone) return;
        readableDone = true;
        try {
          controller.close();
        } catch {
          // already closed or errored
        }
      };
      const onError = (err: Error) => {
        if (readableDone) return;
        readableDone = true;
        finish();
        try {
          controller.error(err);
        } catch {
          // already closed
        }
      };
      ws.on('message', onMessage);
      ws.on('close', onClose);
      ws.on('error', onError);
      if (ws.readyState === WebSocket.CLOSED) onClose();
    },
    cancel() {
      readableDone = true;
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(1000);
    },
  });

  const writable = new WritableStream<AnyMessage>({
    async write(message) {
      await waitForOpen(ws);
      hooks.onOutgoing?.(message);
      await new Promise<void>((resolve, reject) => {
        ws.send(JSON.stringify(message), (err) => (err ? reject(err) : resolve()));
      });
    },
    close() {
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(1000);
    },
    abort() {
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(1000);
    },
  });

  return { readable, writable };
}
