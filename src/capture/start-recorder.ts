import { resolve } from 'node:path';
import { TOOL_VERSION } from '../core/version.js';
import type { ProtocolId } from '../protocols/protocol.js';
import { SchemaRegistry } from '../schema/schema-registry.js';
import { RecordingWriter } from '../store/recording-writer.js';
import { parseListen, parseTarget } from './addresses.js';
import type { LiveListener } from './live-events.js';
import { startProxyServer } from './proxy-server.js';
import { RecordingClock } from './recording-clock.js';
import { TrafficRecorder } from './traffic-recorder.js';

export interface RecorderOptions {
  /** `http://host:port[/base]` or `unix:/path.sock`. */
  target: string;
  /** The recording file; default `recordings/<UTC timestamp>.db`. */
  out?: string;
  /** `[host:]port`, a port number (0 picks a free one), or `unix:/path`. Default 127.0.0.1:8788. */
  listen?: string | number;
  protocol?: ProtocolId;
  redactHeaders?: string[];
  maxBodyBytes?: number;
  /** Extra schema directories (as --schemas); AGENT_PROXY_SCHEMAS is read as well. */
  schemas?: string[];
  registry?: SchemaRegistry;
  listener?: LiveListener;
  /** Replace an existing output file. */
  overwrite?: boolean;
}

export interface RecordingTotals {
  exchanges: number;
  messages: number;
  invalid: number;
  findings: number;
}

export interface RunningRecorder {
  /** Where clients should connect: `http://127.0.0.1:PORT` or `unix:/path`. */
  readonly url: string;
  readonly out: string;
  readonly target: string;
  totals(): RecordingTotals;
  /** Stops accepting, closes open streams cleanly, flushes and closes the recording. */
  close(): Promise<RecordingTotals>;
}

export function defaultRecordingPath(now = new Date()): string {
  const stamp = now.toISOString().replace(/[:]/g, '-').replace(/\.\d+Z$/, 'Z');
  return resolve('recordings', `${stamp}.db`);
}

/** Starts `proxy record` in-process: for tests, scripts and the CLI. */
export async function startRecorder(options: RecorderOptions): Promise<RunningRecorder> {
  const target = parseTarget(options.target);
  const listen = parseListen(options.listen);
  const registry = options.registry ?? SchemaRegistry.load({ extraDirs: options.schemas });
  const clock = new RecordingClock();
  const out = resolve(options.out ?? defaultRecordingPath(clock.startedAt));
  const writer = RecordingWriter.open(
    out,
    { toolVersion: TOOL_VERSION, target: target.display, mode: 'record', schemaHashes: registry.hashes(), startedAt: clock.startedAt },
    { overwrite: options.overwrite },
  );
  const recorder = new TrafficRecorder({
    writer,
    registry,
    clock,
    protocol: options.protocol,
    maxBodyBytes: options.maxBodyBytes,
    listener: options.listener,
  });
  let server;
  try {
    server = await startProxyServer({ listen, target, recorder, redactHeaders: options.redactHeaders });
  } catch (error) {
    writer.close();
    throw error;
  }
  let closed: Promise<RecordingTotals> | undefined;
  return {
    url: server.url,
    out,
    target: target.display,
    totals: () => ({ ...writer.totals }),
    close() {
      closed ??= server.close().then(() => {
        writer.close(new Date());
        return { ...writer.totals };
      });
      return closed;
    },
  };
}
