import type { ExchangeErrorCode } from './errors.js';

/**
 * Who ended an exchange that did not complete, read from its stored error code. The client going
 * away (a closed tab, `abortRun()`) and the proxy stopping (Ctrl-C) cut a stream the agent was still
 * sending: neither says anything about the agent, so no protocol finding is made of it, and every
 * command says who it was.
 */
export type EndedBy = 'client' | 'shutdown' | 'upstream';

const BY_CODE: Readonly<Record<string, EndedBy>> = {
  E_CLIENT_ABORTED: 'client',
  E_PROXY_SHUTDOWN: 'shutdown',
  E_UPSTREAM_RESET: 'upstream',
  E_UPSTREAM_ENDED: 'upstream',
} satisfies Partial<Record<ExchangeErrorCode, EndedBy>>;

export function endedBy(errorCode: string | null | undefined): EndedBy | undefined {
  return errorCode == null ? undefined : BY_CODE[errorCode];
}

/**
 * True when the upstream ended a line conversation while its client's side was still open (the
 * daemon ended the connection, the stdio agent exited): a replay ends it at the same point.
 */
export function upstreamEndedFirst(errorCode: string | null | undefined): boolean {
  return errorCode === 'E_UPSTREAM_ENDED';
}

/** True when the client or the proxy, not the agent, cut the exchange short: no stream-level findings then. */
export function cutByClientOrProxy(errorCode: string | null | undefined): boolean {
  const by = endedBy(errorCode);
  return by === 'client' || by === 'shutdown';
}

/** The outcome as the CLI prints it: `complete`, `aborted by the client`, `cut by proxy shutdown`, `open` … */
export function outcomeText(outcome: string | null | undefined, errorCode: string | null | undefined): string {
  if (outcome == null) return 'open';
  if (outcome !== 'aborted') return outcome;
  switch (endedBy(errorCode)) {
    case 'client':
      return 'aborted by the client';
    case 'shutdown':
      return 'cut by proxy shutdown';
    case 'upstream':
      return 'aborted by the upstream';
    default:
      return outcome;
  }
}
