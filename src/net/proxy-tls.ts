import type { TargetAddress } from './addresses.js';
import { loadListenTls, type ListenTls, type ListenTlsOptions } from './listen-tls.js';
import { checkUpstreamTlsTarget, loadUpstreamTls, type UpstreamTls, type UpstreamTlsOptions } from './upstream-tls.js';

/** The TLS a proxy in front of `target` runs with: towards the upstream, and on its own listener. */
export interface ProxyTls {
  upstreamTls: UpstreamTls;
  listenTls: ListenTls | undefined;
}

/**
 * Reads the certificate files and checks that the upstream options fit the target, before anything
 * else starts: a bad file stops the start with one line and leaves no recording behind.
 */
export function loadProxyTls(target: TargetAddress, upstream: UpstreamTlsOptions | undefined, listen: ListenTlsOptions | undefined): ProxyTls {
  checkUpstreamTlsTarget(target, upstream);
  return { upstreamTls: loadUpstreamTls(upstream), listenTls: listen ? loadListenTls(listen) : undefined };
}
