import { checkProtocolOption } from '../judge/protocol-option.js';
import { parseListen } from '../net/addresses.js';
import { HostGlob } from '../net/host-glob.js';
import { LeafIssuer } from '../net/ca/leaf-issuer.js';
import { openLocalCa } from '../net/ca/local-ca.js';
import { ProxyAuth } from '../net/proxy-auth.js';
import { loadUpstreamTls } from '../net/upstream-tls.js';
import { shutdownGraceOf } from '../net/graceful-shutdown.js';
import { startForwardProxyServer } from './relay/forward-proxy-server.js';
import { FORWARD_TARGET } from './forward-target.js';
import { startRecordingServer, type RecorderOptions, type RunningRecorder } from './start-recorder.js';

/** `record --forward`: the recorder's options without a target (each request names its own) or a TLS listener. */
export interface ForwardRecorderOptions extends Omit<RecorderOptions, 'target' | 'listenTls'> {
  /** `user:password`: clients must send them as Basic Proxy-Authorization (as --proxy-auth). */
  proxyAuth?: string;
  /** Host globs of CONNECTs passed through unread (as --tunnel, repeatable). */
  tunnel?: readonly string[];
  /** Host globs of CONNECTs to intercept, default all (as --intercept, repeatable); `tunnel` wins. */
  intercept?: readonly string[];
  /**
   * The local CA's folder (made on first use; the CLI's default is $XDG_CONFIG_HOME/agent-proxy/ca):
   * TLS to intercepted hosts is answered with its leaves. Without it, every TLS CONNECT is tunnelled.
   */
  caDir?: string;
}


/** Starts `record --forward` in-process: an HTTP forward proxy recording every exchange it carries. */
export async function startForwardRecorder(options: ForwardRecorderOptions): Promise<RunningRecorder> {
  checkProtocolOption(options.protocol, 'startForwardRecorder protocol');
  const listen = parseListen(options.listen);
  const shutdownGraceMs = shutdownGraceOf(options.shutdownGraceMs);
  // Read and checked before the recording file is made: a bad flag leaves nothing behind.
  const upstreamTls = loadUpstreamTls(options.upstreamTls);
  const auth = options.proxyAuth === undefined ? undefined : new ProxyAuth(options.proxyAuth);
  const tunnel = (options.tunnel ?? []).map((glob) => new HostGlob(glob, '--tunnel'));
  // None named: every host (but --tunnel's).
  const intercept = (options.intercept?.length ? options.intercept : ['*']).map((glob) => new HostGlob(glob, '--intercept'));
  const leaves = options.caDir === undefined ? undefined : new LeafIssuer(await openLocalCa({ dir: options.caDir }));
  return startRecordingServer(options, FORWARD_TARGET, (sink) =>
    startForwardProxyServer({ listen, recorder: sink, redactHeaders: options.redactHeaders, redactQuery: options.redactQuery, upstreamTls, auth, tunnel, intercept, leaves, shutdownGraceMs }),
  );
}
