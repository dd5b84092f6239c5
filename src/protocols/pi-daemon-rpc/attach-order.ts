import type { Finding } from '../../core/finding.js';
import { findingFor } from '../pi-rpc/rules.js';
import { PI_DAEMON_RPC_RULES as R } from './rules.js';

type Phase = 'opening' | 'after-gap' | 'attached';

/**
 * The attach handshake of one framed connection: the daemon sends `attach_ready` first,
 * preceded only by a `replay_gap` when the requested cursor cannot be honoured, and a
 * `replay_gap` is always followed by `attach_ready`. Client frames may arrive at any time.
 */
export class AttachOrder {
  private phase: Phase = 'opening';
  /** The connectionId attach_ready announced, once it has. */
  connectionId: unknown;

  /** Checks one server frame of `kind` and advances the handshake. */
  serverFrame(kind: string, frame: Record<string, unknown>): Finding[] {
    if (kind === 'replay_gap') return this.replayGap();
    if (kind === 'attach_ready') return this.attachReady(frame);
    if (this.phase === 'after-gap') {
      return [findingFor(R.replayGapWithoutAttachReady, '/kind', `a replay_gap must be followed by attach_ready, but the next frame is '${kind}'`)];
    }
    if (this.phase === 'opening') {
      return [findingFor(R.attachReadyNotFirst, '/kind', `the daemon sent '${kind}' before attach_ready; attach_ready is always the first frame`)];
    }
    return [];
  }

  /** Findings for a connection that ended cleanly in the middle of the handshake. */
  end(): Finding[] {
    if (this.phase !== 'after-gap') return [];
    return [findingFor(R.replayGapWithoutAttachReady, '', 'the connection ended after a replay_gap without the attach_ready that must follow it')];
  }

  private replayGap(): Finding[] {
    if (this.phase === 'attached') {
      return [findingFor(R.replayGapAfterAttach, '/kind', 'replay_gap arrived after attach_ready; it is only sent while attaching, before attach_ready')];
    }
    if (this.phase === 'after-gap') {
      return [findingFor(R.replayGapWithoutAttachReady, '/kind', 'a second replay_gap follows the first; a replay_gap must be followed by attach_ready')];
    }
    this.phase = 'after-gap';
    return [];
  }

  private attachReady(frame: Record<string, unknown>): Finding[] {
    if (this.phase === 'attached') {
      return [findingFor(R.attachReadyRepeated, '/kind', 'a second attach_ready arrived; a connection is attached once')];
    }
    this.phase = 'attached';
    this.connectionId = frame.connectionId;
    return [];
  }
}
