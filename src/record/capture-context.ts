import { Agent, type RequestOptions } from 'node:http';
import { isTlsTarget, type TargetAddress } from '../net/addresses.js';
import type { UpstreamTls } from '../net/upstream-tls.js';
import type { HeaderRedactor } from '../judge/header-redaction.js';
import type { RecordingSink } from './pipeline/recording-sink.js';

/** What every capture handler needs: where to forward, how to record, and what to hide from storage. */
export interface CaptureContext {
  target: TargetAddress;
  recorder: RecordingSink;
  redactor: HeaderRedactor;
  /** Keep-alive agent for upstream HTTP requests (an https one, with `tls`, for an https:// target). */
  agent: Agent;
  /** How an https:// target's certificate is checked; the WebSocket relay dials with it too. */
  tls?: UpstreamTls;
  /** Live connections, so shutdown can close them cleanly. */
  track(closer: () => void): () => void;
  /** How long a relayed exchange gets to close on its own at shutdown before it is cut (`shutdownGraceMs`). */
  shutdownGraceMs: number;
  /**
   * The forward proxy's: the origin (`http://host:port`) the client addressed this request to, which
   * the exchange's stored URL starts with, since a forward recording has many targets.
   */
  origin?: string;
}

/** The keep-alive agent for the target: TLS settings live on it, so each request stays as cheap as plain HTTP. */
export function upstreamAgent(target: TargetAddress, tls: UpstreamTls): Agent {
  return keepAliveAgent(isTlsTarget(target), tls);
}

/** A keep-alive agent for plain HTTP, or for HTTPS with `tls`'s checks; it pools connections per host and port. */
export function keepAliveAgent(overTls: boolean, tls: UpstreamTls): Agent {
  if (!overTls) return new Agent({ keepAlive: true });
  // node:https (and node:tls with it) is loaded for a TLS upstream only: a plain-HTTP recorder never needs it.
  return new (process.getBuiltinModule('node:https').Agent)({ keepAlive: true, rejectUnauthorized: tls.rejectUnauthorized, ...(tls.secureContext ? { secureContext: tls.secureContext } : {}) });
}

/** host[:port] to send upstream in the Host header (the port left out when it is the scheme's default). */
export function upstreamHost(target: TargetAddress): string {
  if (target.kind === 'unix') return 'localhost';
  const host = target.host.includes(':') ? `[${target.host}]` : target.host;
  return target.port === (target.protocol === 'https:' ? 443 : 80) ? host : `${host}:${target.port}`;
}

/**
 * node:http's options for one request to the target. Written out per kind of address rather than as
 * a spread of upstreamConnectOptions: on Node 20 a spread followed by more properties takes several
 * µs (V8 makes the object on its slow path), and this runs for every request.
 */
export function upstreamRequestOptions(target: TargetAddress, agent: Agent, method: string, path: string, headers: string[]): RequestOptions {
  return target.kind === 'unix' ? { socketPath: target.socketPath, agent, method, path, headers } : { host: target.host, port: target.port, agent, method, path, headers };
}

/** Connection options for node:http / ws toward the target. */
export function upstreamConnectOptions(target: TargetAddress): { socketPath: string } | { host: string; port: number } {
  return target.kind === 'unix' ? { socketPath: target.socketPath } : { host: target.host, port: target.port };
}
