import type { Agent } from 'node:http';
import type { TargetAddress } from '../net/addresses.js';
import type { HeaderRedactor } from '../judge/header-redaction.js';
import type { RecordingSink } from './pipeline/recording-sink.js';

/** What every capture handler needs: where to forward, how to record, and what to hide from storage. */
export interface CaptureContext {
  target: TargetAddress;
  recorder: RecordingSink;
  redactor: HeaderRedactor;
  /** Keep-alive agent for upstream HTTP requests. */
  agent: Agent;
  /** Live connections, so shutdown can close them cleanly. */
  track(closer: () => void): () => void;
}

/** host[:port] to send upstream in the Host header. */
export function upstreamHost(target: TargetAddress): string {
  if (target.kind === 'unix') return 'localhost';
  const host = target.host.includes(':') ? `[${target.host}]` : target.host;
  return target.port === 80 ? host : `${host}:${target.port}`;
}

/** Connection options for node:http / ws toward the target. */
export function upstreamConnectOptions(target: TargetAddress): { socketPath: string } | { host: string; port: number } {
  return target.kind === 'unix' ? { socketPath: target.socketPath } : { host: target.host, port: target.port };
}
