import type { Finding } from '../../core/finding.js';
import { findingFor } from '../pi-rpc/rules.js';
import { PI_DAEMON_RPC_RULES as R } from './rules.js';

/**
 * A server control frame (`control_granted`, `control_denied`, the `release_control` echo)
 * always names the connection it was sent to, which attach_ready announced. Grants and
 * denials need no request: the daemon sends `control_denied` right after attach_ready when
 * `role=controller` was asked for and the session already has a controller.
 */
export function checkServerControl(frame: Record<string, unknown>, connectionId: unknown): Finding[] {
  if (frame.connectionId === undefined || connectionId === undefined || frame.connectionId === connectionId) return [];
  return [
    findingFor(
      R.controlConnectionMismatch,
      '/connectionId',
      `the control frame names connection ${JSON.stringify(frame.connectionId)}, but attach_ready announced ${JSON.stringify(connectionId)}`,
    ),
  ];
}
