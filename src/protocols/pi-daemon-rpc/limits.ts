/**
 * The daemon's default `maxInFlightCommandsPerConnection` (pi-daemon `DEFAULT_RPC_ATTACHMENT_LIMITS`).
 * The live value is advertised in `GET /v1/capabilities` under `rpc.limits`, not in attach_ready,
 * so a caller that read it there passes it to `createPiDaemonRpcProtocol`.
 */
export const DEFAULT_MAX_IN_FLIGHT_COMMANDS = 8;

export interface PiDaemonRpcOptions {
  maxInFlightCommandsPerConnection?: number;
}
