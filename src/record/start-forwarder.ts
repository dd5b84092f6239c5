import { parseListen, parseTarget } from '../net/addresses.js';
import type { ListenTlsOptions } from '../net/listen-tls.js';
import { loadProxyTls } from '../net/proxy-tls.js';
import type { UpstreamTlsOptions } from '../net/upstream-tls.js';
import { DiscardingSink } from './pipeline/discarding-sink.js';
import { startProxyServer } from './relay/proxy-server.js';

export interface ForwarderOptions {
  /** `http://host:port[/base]` or `unix:/path.sock`. */
  target: string;
  /** `[host:]port`, a port number (0 picks a free one), or `unix:/path`. Default 127.0.0.1:8788. */
  listen?: string | number;
  /** For an `https://` target: more CAs to trust, or no certificate check at all. */
  upstreamTls?: UpstreamTlsOptions;
  /** Serve HTTPS and WSS instead of plain HTTP. */
  listenTls?: ListenTlsOptions;
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
  const server = await startProxyServer({ listen: parseListen(options.listen), target, recorder: sink, upstreamTls, listenTls });
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
