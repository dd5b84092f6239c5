/** The WebSocket subprotocols of the daemon's `/v1/session/{ref}/rpc` route. */
export const PI_RPC_SUBPROTOCOL = 'pi-rpc.v1';
export const PI_DAEMON_RPC_SUBPROTOCOL = 'pi-daemon-rpc.v1';

const SUPPORTED = [PI_RPC_SUBPROTOCOL, PI_DAEMON_RPC_SUBPROTOCOL];

/**
 * The subprotocol the daemon uses for a `Sec-WebSocket-Protocol` value: it picks the first
 * offered value it supports, in client order (pi-daemon `selectSubprotocol`). A negotiated
 * value is a one-item list, so this works for both offered and echoed headers.
 */
export function piSubprotocolOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return header
    .split(',')
    .map((entry) => entry.trim())
    .find((entry) => SUPPORTED.includes(entry));
}
