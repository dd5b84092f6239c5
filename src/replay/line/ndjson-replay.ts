import type { Server as HttpServer } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { parseListen } from '../../net/addresses.js';
import { InFlight } from '../../net/in-flight.js';
import { GracefulShutdown, shutdownGraceOf } from '../../net/graceful-shutdown.js';
import { listenOn } from '../../net/listen-on.js';
import { UsageError } from '../../core/errors.js';
import { upstreamEndedFirst } from '../../core/exchange-ending.js';
import { SYSTEM_CLOCK, type Clock } from '../clock.js';
import { parseIgnoreOption } from '../../core/field-specs.js';
import { classifyForReplay } from '../../protocols/catalog.js';
import { LineInbox, lineFaultsOf, planLines, playLineConversation, type LineMiss } from './line-conversation.js';
import { FaultPlan, type ChosenFaults, type FaultTally } from '../fault/fault-plan.js';
import { parseFault, type FaultSpec } from '../fault/fault-spec.js';
import { faultsField } from '../fault/fault-notice.js';
import { loadReplayScript, type ScriptExchange, type ScriptMessage } from '../replay-script.js';
import { hostInstanceIdOf, lineMissAnswer, lineMissMessage, recordedMethodsOf } from './stdio-miss.js';
import { writeTo } from './stdio-replay.js';
import { maxRequestBytesOf } from '../http/request-limits.js';
import { parseTiming, type Timing } from '../timing.js';

/** The protocol of an exchange recorded without one: the one that claims a socket of NDJSON lines, as record chose it. */
const SOCKET_PROTOCOL = classifyForReplay({ transport: 'ndjson' })?.id;

export interface NdjsonReplayOptions {
  recording: string;
  /** `unix:/path.sock` (created 0600) or `[host:]port`. */
  listen: string;
  timing?: string | Timing;
  ignore?: string[];
  strict?: boolean;
  /** Longest client line held to match it, in bytes (default 10 MiB); a longer one is a miss. */
  maxRequestBytes?: number;
  /** Told about each connection served and each miss. */
  log?: NdjsonReplayLog;
  /** What the pacing runs on (default: the system clock). */
  clock?: Clock;
  /**
   * Faults to inject, as `--fault` specs or already parsed, chosen once per connection: `latency`
   * before the first daemon line, `gap` before each later one, `cut=clean|reset,after=<n>` to end
   * the connection (or destroy it) after n daemon lines.
   */
  faults?: readonly (string | FaultSpec)[];
  /** How long open connections get to finish at close() before they are cut (default 2000 ms). */
  shutdownGraceMs?: number;
}

export interface NdjsonReplayLog {
  /** `faults`: the specs that changed this connection, as given; absent when none did. */
  served(event: { exchangeId: number; sent: number; misses: number; unused: number; substitutions: number; redacted: number; faults?: string[] }): void;
  miss(message: string, miss?: LineMiss): void;
}

export interface NdjsonReplaySummary {
  misses: string[];
  /** Recorded connections never served. */
  unusedExchanges: number[];
  /** Recorded client lines that never came on connections that were served. */
  unusedLines: ScriptMessage[];
  ok: boolean;
  /** Every `faults` spec, in the order given, with how many connections it changed (0: it matched nothing). */
  faults: FaultTally[];
}

export interface RunningNdjsonReplay {
  readonly url: string;
  readonly recording: string;
  close(): Promise<NdjsonReplaySummary>;
}

/**
 * `proxy replay --ndjson`: serves a recorded NDJSON socket. Each connection plays the next recorded
 * connection, in recorded order, turn by turn: it waits for each recorded client line, compares it
 * after normalization (`requestId` learnt and substituted) and writes the daemon lines that
 * followed. A line that matches nothing gets an `ok:false` response with error code `replay_miss`.
 * The `faults` plan is asked once per served connection.
 */
export async function startNdjsonReplay(options: NdjsonReplayOptions): Promise<RunningNdjsonReplay> {
  const timing = typeof options.timing === 'object' ? options.timing : parseTiming(options.timing);
  const clock = options.clock ?? SYSTEM_CLOCK;
  const ignore = parseIgnoreOption(options.ignore ?? []);
  const maxLineBytes = maxRequestBytesOf(options.maxRequestBytes);
  const listen = parseListen(options.listen);
  const script = await loadReplayScript(options.recording);
  const exchanges = script.exchanges.filter((e) => e.transport === 'ndjson');
  if (exchanges.length === 0) throw new UsageError(`${script.file} holds no NDJSON connection (record one with agent-proxy record --ndjson)`);
  const log = options.log ?? { served() {}, miss() {} };
  const plan = new FaultPlan((options.faults ?? []).map((fault) => (typeof fault === 'string' ? parseFault(fault) : fault)));
  const misses: string[] = [];
  const unusedLines: ScriptMessage[] = [];
  let next = 0;
  const inFlight = new InFlight(shutdownGraceOf(options.shutdownGraceMs));
  const running = new Set<Promise<void>>();

  const server = createServer((socket) => {
    const exchange = exchanges[next++];
    if (!exchange) {
      const message = `replay miss: connection ${next} but the recording holds only ${exchanges.length} NDJSON connections`;
      misses.push(message);
      log.miss(message);
      socket.destroy();
      return;
    }
    const done = serve(socket, exchange, plan.choose({ transport: 'ndjson', method: '', path: '' })).finally(() => running.delete(done));
    running.add(done);
  });

  async function serve(socket: Socket, exchange: ScriptExchange, faults: ChosenFaults): Promise<void> {
    socket.on('error', () => undefined);
    const abort = new AbortController();
    const inbox = new LineInbox(socket, maxLineBytes);
    const stop = () => {
      abort.abort();
      inbox.close();
    };
    const untrack = inFlight.add(stop);
    const context = { recordedMethods: recordedMethodsOf(exchange.messages), hostInstanceId: hostInstanceIdOf(exchange.messages) };
    try {
      const result = await playLineConversation(planLines(exchange.messages), inbox, {
        protocol: exchange.protocol ?? SOCKET_PROTOCOL,
        ignore,
        timing,
        clock,
        anchorMs: exchange.startedMs,
        signal: abort.signal,
        faults: lineFaultsOf(faults, faults.cut?.after),
        // A connection the daemon ended is ended here too (by the `finally` below), after its last line.
        peerEnds: upstreamEndedFirst(exchange.errorCode),
        write: (bytes) => writeTo(socket, bytes),
        onMiss(miss) {
          const message = lineMissMessage(miss);
          misses.push(message);
          log.miss(message, miss);
          return lineMissAnswer(exchange.protocol ?? SOCKET_PROTOCOL, miss, context);
        },
      });
      for (const line of result.unused) unusedLines.push(line);
      if (result.faulted && faults.cut?.how === 'reset') await reset(socket);
      log.served({ exchangeId: exchange.id, sent: result.sent, misses: result.misses.length, unused: result.unused.length, substitutions: result.substitutions, redacted: result.redacted, ...faultsField(faults) });
    } finally {
      untrack();
      socket.end();
    }
  }

  /**
   * An injected `cut=reset`: once the lines before it are written, the connection is dropped at
   * once, without the daemon's orderly end (which waits for the client to end its side). Not a TCP
   * RST: that would let the kernel discard lines the client had not read yet.
   */
  async function reset(socket: Socket): Promise<void> {
    await new Promise<void>((resolve) => socket.write(Buffer.alloc(0), () => resolve()));
    socket.destroy();
  }

  const shutdown = new GracefulShutdown(server, inFlight, listen);
  await listenOn(server as unknown as HttpServer, listen);
  const address = server.address();
  const url = listen.kind === 'unix' ? `unix:${listen.socketPath}` : `tcp:${listen.host}:${typeof address === 'object' && address ? address.port : listen.port}`;
  let closing: Promise<NdjsonReplaySummary> | undefined;
  return {
    url,
    recording: script.file,
    close() {
      closing ??= (async () => {
        await shutdown.close();
        await Promise.allSettled([...running]);
        const unusedExchanges = exchanges.slice(next).map((e) => e.id);
        return {
          misses: [...misses],
          unusedExchanges,
          unusedLines: [...unusedLines],
          ok: !options.strict || (misses.length === 0 && unusedExchanges.length === 0 && unusedLines.length === 0),
          faults: plan.tally(),
        };
      })();
      return closing;
    },
  };
}
