/**
 * What the forward proxy learnt of a CONNECT tunnel it passed through unread: how many bytes each
 * side sent. Stored once per tunnel exchange (`exchanges.tunnel`, JSON), when the tunnel ends; the
 * host and port are the exchange's URL, its duration its start and end, how it ended its outcome.
 * Type-only: the inspector page may import it.
 */
export interface TunnelFacts {
  /** Bytes the client sent into the tunnel (after the proxy's 200). */
  clientBytes: number;
  /** Bytes the host sent back through it. */
  serverBytes: number;
}
