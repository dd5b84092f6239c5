import { Agent, type IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { parseTarget } from '../capture/addresses.js';
import type { CaptureContext } from '../capture/capture-context.js';
import { forwardHttp } from '../capture/http-forwarder.js';
import { RecordingClock } from '../capture/recording-clock.js';
import { HeaderRedactor } from '../capture/redaction.js';
import type { RecordingTotals } from '../capture/start-recorder.js';
import { TrafficRecorder } from '../capture/traffic-recorder.js';
import { relayUpgrade } from '../capture/ws-relay.js';
import { TOOL_VERSION } from '../core/version.js';
import { SchemaRegistry } from '../schema/schema-registry.js';
import { RecordingWriter } from '../store/recording-writer.js';
import type { MissPassthrough } from './replay-context.js';

/** `rec.db` → `rec.misses.db`: where `--on-miss passthrough` records by default. */
export function defaultMissesPath(recording: string): string {
  return recording.replace(/(\.db|\.sqlite3?)?$/, '.misses.db');
}

export interface RunningPassthrough extends MissPassthrough {
  /** Waits for forwarded exchanges, then closes the misses recording. */
  close(): Promise<RecordingTotals>;
}

/**
 * VCR's "new episodes" for `--on-miss passthrough`: a miss is forwarded to the real upstream by the
 * recorder's own forwarder and recorded, with verdicts, into a separate recording (by default
 * `<recording>.misses.db`). The replayed recording itself is never written to: the store writes
 * only new files, and a replay must not change the fixture it is serving.
 */
export function startMissPassthrough(options: { target: string; out: string; overwrite?: boolean; registry?: SchemaRegistry }): RunningPassthrough {
  const target = parseTarget(options.target);
  const clock = new RecordingClock();
  const registry = options.registry ?? SchemaRegistry.load();
  const writer = RecordingWriter.open(
    options.out,
    { toolVersion: TOOL_VERSION, target: target.display, mode: 'record', schemaHashes: registry.hashes(), startedAt: clock.startedAt },
    { overwrite: options.overwrite },
  );
  const recorder = new TrafficRecorder({ writer, registry, clock });
  const open = new Set<() => void>();
  let idle: (() => void) | undefined;
  const agent = new Agent({ keepAlive: true });
  const capture: CaptureContext = {
    target,
    recorder,
    redactor: new HeaderRedactor(),
    agent,
    track(closer) {
      open.add(closer);
      return () => {
        if (open.delete(closer) && open.size === 0) idle?.();
      };
    },
  };
  return {
    target: target.display,
    out: writer.file,
    forwardHttp(req, body, res) {
      forwardHttp(bufferedRequest(req, body), res, capture);
    },
    forwardUpgrade(req, socket, head) {
      relayUpgrade(req, socket, head, capture);
    },
    async close() {
      for (const closer of [...open]) closer();
      // Never hang on an exchange that fails to report its end.
      if (open.size > 0) await new Promise<void>((resolve) => ((idle = resolve), setTimeout(resolve, 5_000).unref()));
      agent.destroy();
      return recorder.close(new Date());
    },
  };
}

/**
 * The forwarder reads the request as a stream, but replay has already read it to match it: hand
 * the forwarder a stream of the same body carrying the same request line and headers.
 */
function bufferedRequest(req: IncomingMessage, body: Buffer): IncomingMessage {
  const stream = new PassThrough();
  stream.end(body);
  return Object.assign(stream, {
    method: req.method,
    url: req.url,
    headers: req.headers,
    rawHeaders: req.rawHeaders,
    httpVersion: req.httpVersion,
    socket: req.socket,
  }) as unknown as IncomingMessage;
}
