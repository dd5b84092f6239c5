import type { CheckerContext } from '../protocol.js';

/** The extension UI requests one scope has seen: open ones with their method, and answered ones. */
export interface DialogBook {
  /**
   * `stdio`: stock Pi, which knows only the requests of its own process and ignores any other answer.
   * `daemon`: a pi-daemon session, whose request ids are session-wide: any connection to it may
   * answer (only the controller's answer is taken), and an unknown id is refused with `unknown_ui_request`.
   */
  readonly host: 'stdio' | 'daemon';
  /** The daemon session's ref, as in `/v1/session/{ref}/rpc`. */
  readonly session?: string;
  readonly open: Map<string, unknown>;
  readonly closed: Set<string>;
}

/** `/v1/session/{ref}/rpc`, the daemon's RPC WebSocket (raw and framed), with `ref` captured. */
const DAEMON_RPC_PATH = /^\/v1\/session\/([^/]+)\/rpc$/;

/**
 * Where a channel keeps its extension UI requests: a daemon RPC WebSocket shares one book per session
 * across every connection of the recording (the daemon issues ids session-wide and shows each request
 * to every attachment); any other channel (stock Pi on stdio) keeps its own. `only: 'daemon'`: the
 * protocol runs only on the daemon (framed RPC), whatever the channel says.
 */
export function dialogBookFor(context: Pick<CheckerContext, 'channel' | 'scope'>, only?: 'daemon'): DialogBook {
  const match = context.channel?.path === undefined ? null : DAEMON_RPC_PATH.exec(context.channel.path);
  if (!match) return { host: only ?? (context.channel?.transport === 'ws' ? 'daemon' : 'stdio'), open: new Map(), closed: new Set() };
  const session = decode(match[1]);
  const fresh = (): DialogBook => ({ host: 'daemon', session, open: new Map(), closed: new Set() });
  return context.scope ? context.scope.entry(`pi-extension-ui:${session}`, fresh) : fresh();
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
