import { parseListen, parseTarget } from '../net/addresses.js';
import type { ListenTlsOptions } from '../net/listen-tls.js';
import { loadProxyTls } from '../net/proxy-tls.js';
import { DiscardingSink } from './pipeline/discarding-sink.js';
import { startProxyServer } from './relay/proxy-server.js';
import { startForwardProxyServer } from './relay/forward-proxy-server.js';
import { LeafIssuer } from '../net/ca/leaf-issuer.js';
import { openLocalCa } from '../net/ca/local-ca.js';
import { ProxyAuth } from '../net/proxy-auth.js';
import { HostGlob } from '../net/host-glob.js';
import { loadUpstreamTls, type UpstreamTlsOptions } from '../net/upstream-tls.js';
import { shutdownGraceOf } from '../net/graceful-shutdown.js';
import { FORWARD_TARGET } from './forward-target.js';

export interface ForwarderOptions {
  /** `http://host:port[/base]` or `unix:/path.sock`. */
  target: string;
  /** `[host:]port`, a port number (0 picks a free one), or `unix:/path`. Default 127.0.0.1:8788. */
  listen?: string | number;
  /** For an `https://` target: more CAs to trust, or no certificate check at all. */
  upstreamTls?: UpstreamTlsOptions;
  /** Serve HTTPS and WSS instead of plain HTTP. */
  listenTls?: ListenTlsOptions;
  /** How long open exchanges get to finish at close() before they are cut, in milliseconds (default 2000). */
  shutdownGraceMs?: number;
}

export interface RunningForwarder {
  readonly url: string;
  readonly target: string;
  /** Stops accepting, ends open streams cleanly, and resolves to how many exchanges went through. */
  close(): Promise<number>;
}

/**
 * The recording proxy with nothing recorded: the same forwarding (HTTP, SSE, protobuf, WebSocket),
 * with a sink that keeps nothing, so passing through behaves exactly as recording does on the wire.
 */
export async function startForwarder(options: ForwarderOptions): Promise<RunningForwarder> {
  const target = parseTarget(options.target);
  const { upstreamTls, listenTls } = loadProxyTls(target, options.upstreamTls, options.listenTls);
  const sink = new DiscardingSink();
  const server = await startProxyServer({ listen: parseListen(options.listen), target, recorder: sink, upstreamTls, listenTls, shutdownGraceMs: shutdownGraceOf(options.shutdownGraceMs) });
  let closed: Promise<number> | undefined;
  return {
    url: server.url,
    target: target.display,
    close() {
      closed ??= server.close().then(() => sink.totals().exchanges);
      return closed;
    },
  };
}

/** `fixture --forward --mode passthrough`: the forward proxy's options when nothing is recorded. */
export interface ForwardForwarderOptions {
  /** `[host:]port`, a port number (0 picks a free one), or `unix:/path`. Default 127.0.0.1:8788. */
  listen?: string | number;
  /** For the `https://` origins: more CAs to trust, or no certificate check at all. */
  upstreamTls?: UpstreamTlsOptions;
  /** The local CA's folder: TLS inside a CONNECT is intercepted with its leaves; without it, tunnelled. */
  caDir?: string;
  /** `user:password`: clients must send them as Basic Proxy-Authorization (as --proxy-auth). */
  proxyAuth?: string;
  /** How long open exchanges get to finish at close() before they are cut, in milliseconds (default 2000). */
  shutdownGraceMs?: number;
}

/**
 * The forward proxy (`record --forward`) with nothing recorded: each request goes to the origin it
 * names, a CONNECT is intercepted (or tunnelled without a CA) exactly as when recording.
 */
export async function startForwardForwarder(options: ForwardForwarderOptions): Promise<RunningForwarder> {
  const listen = parseListen(options.listen);
  const upstreamTls = loadUpstreamTls(options.upstreamTls);
  const auth = options.proxyAuth === undefined ? undefined : new ProxyAuth(options.proxyAuth);
  const leaves = options.caDir === undefined ? undefined : new LeafIssuer(await openLocalCa({ dir: options.caDir }));
  const sink = new DiscardingSink();
  const server = await startForwardProxyServer({ listen, recorder: sink, upstreamTls, auth, leaves, intercept: [new HostGlob('*', '--intercept')], shutdownGraceMs: shutdownGraceOf(options.shutdownGraceMs) });
  let closed: Promise<number> | undefined;
  return {
    url: server.url,
    target: FORWARD_TARGET,
    close() {
      closed ??= server.close().then(() => sink.totals().exchanges);
      return closed;
    },
  };
}
