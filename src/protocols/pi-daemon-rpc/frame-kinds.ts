import type { Sender } from '../../core/message.js';
import { PI_SESSION_API_ID } from '../pi-rest/schemas.js';
import { isJsonObject } from '../../core/json.js';

export type FrameKind =
  | 'command'
  | 'extension_ui_response'
  | 'control'
  | 'tree_navigate'
  | 'attach_ready'
  | 'response'
  | 'event'
  | 'replay_gap'
  | 'tree_navigate_result';

interface KindInfo {
  /** The `$def` that validates this kind. */
  def: string;
  /** Who may send it; control frames go both ways and are refined by `action`. */
  senders: readonly Sender[];
}

/** Every frame kind of `sessionRpcFrame`, with its own `$def` and direction (docs/session-api.md § framed mode). */
export const FRAME_KINDS: Readonly<Record<FrameKind, KindInfo>> = {
  command: { def: 'rpcCommandFrame', senders: ['client'] },
  extension_ui_response: { def: 'rpcExtensionUiResponseFrame', senders: ['client'] },
  tree_navigate: { def: 'rpcTreeNavigateFrame', senders: ['client'] },
  control: { def: 'rpcControlFrame', senders: ['client', 'server'] },
  attach_ready: { def: 'rpcAttachReadyFrame', senders: ['server'] },
  response: { def: 'rpcResponseFrame', senders: ['server'] },
  event: { def: 'rpcEventFrame', senders: ['server'] },
  replay_gap: { def: 'rpcReplayGapFrame', senders: ['server'] },
  tree_navigate_result: { def: 'rpcTreeNavigateResultFrame', senders: ['server'] },
};

/**
 * Who sends each control action. `release_control` goes both ways: the client asks, and the
 * daemon echoes it with the connectionId and `reason: "released"`.
 */
export const CONTROL_ACTION_SENDERS: Readonly<Record<string, readonly Sender[]>> = {
  request_control: ['client'],
  release_control: ['client', 'server'],
  control_granted: ['server'],
  control_denied: ['server'],
};

/** The union of all frames, used only to give an unknown kind some context. */
export const SESSION_RPC_FRAME_REF = `${PI_SESSION_API_ID}#/$defs/sessionRpcFrame`;

export function frameKindOf(value: unknown): FrameKind | undefined {
  if (!isJsonObject(value) || typeof value.kind !== 'string') return undefined;
  return Object.hasOwn(FRAME_KINDS, value.kind) ? (value.kind as FrameKind) : undefined;
}

export function frameRef(kind: FrameKind): string {
  return `${PI_SESSION_API_ID}#/$defs/${FRAME_KINDS[kind].def}`;
}

/** Who may send this frame; unknown control actions are left to the schema. */
export function allowedSenders(kind: FrameKind, frame: Record<string, unknown>): readonly Sender[] {
  if (kind === 'control' && typeof frame.action === 'string' && Object.hasOwn(CONTROL_ACTION_SENDERS, frame.action)) {
    return CONTROL_ACTION_SENDERS[frame.action];
  }
  return FRAME_KINDS[kind].senders;
}

/** Which side sent a frame, from its shape alone. */
export function guessFrameSender(value: unknown): Sender {
  const kind = frameKindOf(value);
  if (kind === undefined) return 'server';
  const frame = value as Record<string, unknown>;
  if (kind === 'control') {
    if (frame.action === 'request_control') return 'client';
    // The daemon's echo of release_control names the connection; the client's request does not.
    if (frame.action === 'release_control') return frame.connectionId === undefined ? 'client' : 'server';
    return 'server';
  }
  return FRAME_KINDS[kind].senders[0];
}
