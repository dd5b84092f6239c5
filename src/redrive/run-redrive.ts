import type { DiffOptions, DiffStep } from '../diff/diff-options.js';
import type { DiffReport } from '../diff/diff-report.js';
import { diffRecordingFilesReporting } from '../diff/diff-recordings.js';
import { startRecorder } from '../record/start-recorder.js';
import type { RecordingPipeline } from '../record/open-recording-sink.js';
import type { UpstreamTlsOptions } from '../net/upstream-tls.js';
import { httpExchanges, loadReplayScript, wsExchanges, type ReplayScript, type ScriptExchange } from '../replay/replay-script.js';
import { UsageError } from '../core/errors.js';
import { redriveStdioExchange } from './stdio-conversation.js';
import { sendNdjsonConversation } from './ndjson-conversation.js';
import { startNdjsonRecorder } from '../record/relay/ndjson-relay.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ANSWER_WAIT_MS, sendWsConversation } from './ws-conversation.js';
import { EndpointStreams } from './endpoint-stream.js';
import { SYSTEM_CLOCK } from '../replay/clock.js';
import { redriveRequestOf, unsendableReason } from './redrive-request.js';
import type { SuppliedHeader } from './supplied-header.js';
import { sendRequest } from './send-request.js';
import { Substitution } from '../match/correlation.js';
import { answerValues } from './answer-values.js';
import { learnMintedHeaderIds, learnMintedIds } from './minted-ids.js';
import type { Pacing } from './pacing.js';
import { missingValuesMessage, RedactedValues } from './redacted-values.js';

export interface RedriveOptions {
  /** The recording whose client side is sent again (.db or .ndjson). */
  recording: string;
  /** The agent to send it to: `http[s]://host[:port][/base]` (not with `agent`). */
  target?: string;
  /** A stdio agent to start (`--stdio -- <command>`) in place of `target`: the recording's stdio exchange is played to it. */
  agent?: { command: string; args: readonly string[]; env?: NodeJS.ProcessEnv };
  /** The new recording. */
  out: string;
  overwrite?: boolean;
  /** Headers given now (`--header`): sent in place of recorded ones of the same name, and never stored. */
  headers?: readonly SuppliedHeader[];
  /** Values given now (`--redacted-values`) for the JSON fields the recording redacted in what the client sent: sent in their place, and stored redacted. */
  redactedValues?: RedactedValues;
  /** How the two recordings are compared (`semantic` is the caller's to set). */
  diff?: DiffOptions;
  upstreamTls?: UpstreamTlsOptions;
  pipeline?: RecordingPipeline;
  /** One exchange at a time, each once the one before has ended (default: exchanges that overlapped in the recording overlap again). */
  serial?: boolean;
  /**
   * How the client messages of a connection (WebSocket, NDJSON socket, stdio) are paced: as fast as
   * the agent answers (default), or at their recorded offsets from the connection's start (`--timing`).
   */
  pacing?: Pacing;
  /** Told once per exchange as it is sent: the recorded exchange, and why it was not sent when it was not. */
  progress?: (event: RedriveEvent) => void;
  diffProgress?: (step: DiffStep) => void;
}

export type RedriveEvent =
  | { kind: 'sent'; exchange: ScriptExchange; error?: string; missing: string[] }
  | { kind: 'skipped'; exchange: ScriptExchange; reason: string }
  /** What an exchange waited for did not all come within the wait (a legacy MCP session's stream short of an event): it went on without. */
  | { kind: 'unmet'; exchange: ScriptExchange; reason: string };

export interface RedriveResult {
  out: string;
  sent: number;
  /** Recorded exchanges not sent, with why (a transport redrive does not drive yet, a truncated body). */
  skipped: { exchangeId: number; reason: string }[];
  report: DiffReport;
}

/**
 * `agent-proxy redrive`: sends the client side of each recorded HTTP exchange to `target` through a
 * recorder started in front of it (so the new traffic gets the same verdicts and redaction as any
 * recording), in recorded order, then diffs the recording with the new one. An exchange starts once
 * those that had ended before it started in the recording have ended; overlapping ones overlap.
 * Ids the new server mints in place of recorded ones (a session, a ticket) are carried forward into
 * the later requests that used the recorded ones. With `target` `unix:/path.sock` the NDJSON socket
 * connections are sent instead, through the NDJSON relay; with `agent`, the stdio exchange.
 */
export async function runRedrive(options: RedriveOptions): Promise<RedriveResult> {
  const script = withRedactedValues(await loadReplayScript(options.recording), options.redactedValues ?? RedactedValues.NONE);
  if (options.agent) return runStdioRedrive(script, options.agent, options);
  if (options.target === undefined) throw new UsageError('redrive needs --target, or --stdio and the agent command after --');
  const target = options.target;
  // The daemon's NDJSON socket: its connections are sent through the NDJSON relay, listening on a socket of our own.
  const socketDir = target.startsWith('unix:') ? mkdtempSync(join(tmpdir(), 'agent-proxy-redrive-')) : undefined;
  const http = new Set(socketDir === undefined ? httpExchanges(script) : []);
  const ws = new Set(socketDir === undefined ? wsExchanges(script) : []);
  const ndjson = new Set(socketDir === undefined ? [] : script.exchanges.filter((e) => e.transport === 'ndjson'));
  const supplied = options.headers ?? [];
  let recorder: { url: string; out: string; close(): Promise<unknown> };
  try {
    recorder =
      socketDir === undefined
        ? await startRecorder({
            target,
            out: options.out,
            listen: 0,
            overwrite: options.overwrite,
            upstreamTls: options.upstreamTls,
            pipeline: options.pipeline,
            // What was given now is a secret of this run: stored as redacted, as the recording had it.
            redactHeaders: supplied.map((h) => h.name),
            redactFields: redactedFieldsOf(options),
          })
        : await startNdjsonRecorder({
            target,
            listen: `unix:${join(socketDir, 'redrive.sock')}`,
            out: options.out,
            overwrite: options.overwrite,
            pipeline: options.pipeline,
            redactFields: redactedFieldsOf(options),
          });
  } catch (error) {
    if (socketDir !== undefined) rmSync(socketDir, { recursive: true, force: true });
    throw error;
  }
  const skipped: RedriveResult['skipped'] = [];
  let sent = 0;
  try {
    // Ids the new server minted in place of recorded ones, carried into the requests that follow.
    const ids = new Substitution();
    // Legacy MCP sessions (HTTP+SSE): a GET stream that names the URL its session's POSTs go to.
    const streams = new EndpointStreams([...http], ids, { ms: ANSWER_WAIT_MS, clock: options.pacing?.clock ?? SYSTEM_CLOCK });
    const unmet = (exchange: ScriptExchange, reason: string | undefined) => {
      if (reason !== undefined) options.progress?.({ kind: 'unmet', exchange, reason });
    };
    const started: Started[] = [];
    const send = async (exchange: ScriptExchange, cut?: Promise<void>) => {
      const stream = streams.of(exchange);
      const posts = stream !== undefined && stream.holds(exchange);
      // A POST of a legacy session goes once its stream has carried what it had carried before it.
      if (posts) unmet(exchange, await stream.before(exchange));
      const request = redriveRequestOf(exchange, supplied, ids);
      if (posts) request.url = stream.urlFor(exchange, request.url);
      let answer;
      // A conversation learns the ids its answers mint as they come (ConnectionIds), into `ids`.
      if (ndjson.has(exchange)) answer = await sendNdjsonConversation(recorder.url.slice('unix:'.length), exchange, ids, options.pacing);
      else if (ws.has(exchange)) answer = await sendWsConversation(new URL(recorder.url), exchange, request, ids, options.pacing);
      else {
        const opens = stream !== undefined && !posts ? stream : undefined;
        answer = await sendRequest(new URL(recorder.url), request, { cut, ...(opens ? { onChunk: (chunk: Buffer) => opens.take(chunk) } : {}) });
        opens?.end();
        ids.add(learnMintedHeaderIds(exchange.responseHeaders, answer.headers));
        ids.add(learnMintedIds(recordedAnswerValues(exchange), answerValues(answer.body, answer.headers)));
      }
      sent++;
      options.progress?.({ kind: 'sent', exchange, missing: request.missing, ...(answer.error === undefined ? {} : { error: answer.error }) });
    };
    for (const exchange of script.exchanges) {
      const reason = http.has(exchange) || ws.has(exchange) || ndjson.has(exchange) ? unsendableReason(exchange) : notSentReason(exchange, socketDir !== undefined);
      if (reason !== undefined) {
        skipped.push({ exchangeId: exchange.id, reason });
        options.progress?.({ kind: 'skipped', exchange, reason });
        continue;
      }
      // What had ended before this exchange started in the recording ends first now too (all of it
      // with `serial`): its answers, and the ids they mint, come before. What overlapped it runs beside it.
      // A legacy session's POSTs never wait for its stream to end: their answers come on it.
      const before = (options.serial ? started : started.filter((s) => s.exchange.endedMs !== null && s.exchange.endedMs <= exchange.startedMs)).filter(
        (s) => streams.of(exchange)?.opener !== s.exchange,
      );
      await Promise.all(before.map((s) => endWhenCut(s, started, streams, unmet)));
      if (http.has(exchange) && cutByClient(exchange)) {
        let cut!: () => void;
        const cutNow = new Promise<void>((resolve) => (cut = resolve));
        started.push({ exchange, done: send(exchange, cutNow), cut });
      } else started.push({ exchange, done: send(exchange) });
    }
    await Promise.all(started.map((s) => endWhenCut(s, started, streams, unmet)));
  } finally {
    await recorder.close();
    if (socketDir !== undefined) rmSync(socketDir, { recursive: true, force: true });
  }
  const report = diffRecordingFilesReporting(options.recording, recorder.out, options.diff ?? {}, options.diffProgress);
  return { out: recorder.out, sent, skipped, report };
}

/**
 * An HTTP exchange ended on the client's side before its answer ended: a stream the client closed
 * (an MCP session's GET stream), or one still open when the recording stopped.
 */
function cutByClient(exchange: ScriptExchange): boolean {
  return exchange.outcome === 'aborted' && exchange.endedMs !== null && (exchange.errorCode === 'E_CLIENT_ABORTED' || exchange.errorCode === 'E_PROXY_SHUTDOWN');
}

/** An exchange being sent: `done` once it has ended; `cut` ends it where its recorded client did. */
interface Started {
  exchange: ScriptExchange;
  done: Promise<void>;
  cut?: () => void;
  /** endWhenCut's work, done once however many exchanges wait for it. */
  ending?: Promise<void>;
}

/**
 * `s` done: for an exchange its client cut in the recording, cut now once the exchanges (not cut
 * themselves) that had started before its recorded end have ended, as the answers it had by then
 * came before it was cut, and, for a legacy session's stream, once it has carried the events the
 * recording holds of it (bounded: `unmet` is told when they did not all come); a server that would
 * keep the stream open never holds the redrive.
 */
function endWhenCut(s: Started, started: readonly Started[], streams: EndpointStreams, unmet: (exchange: ScriptExchange, reason: string | undefined) => void): Promise<void> {
  s.ending ??= (async () => {
    if (s.cut !== undefined) {
      const endedMs = s.exchange.endedMs ?? Infinity;
      await Promise.all(started.filter((o) => o !== s && o.cut === undefined && o.exchange.startedMs < endedMs).map((o) => o.done));
      const stream = streams.of(s.exchange);
      if (stream?.opener === s.exchange) unmet(s.exchange, await stream.whole());
      s.cut();
    }
    await s.done;
  })();
  return s.ending;
}

/** Why an exchange of a transport this target does not take is not sent. */
function notSentReason(exchange: ScriptExchange, socket: boolean): string {
  if (exchange.transport === 'stdio') return 'a stdio exchange (redrive sends it to the agent command given with --stdio)';
  if (exchange.transport === 'ndjson') return 'an ndjson exchange (redrive sends it to --target unix:/path/daemon.sock)';
  return `a ${exchange.transport} exchange (redrive sends it to an http[s]:// --target${socket ? ', not a unix: one' : ''})`;
}

/**
 * The stdio form: the recording's first stdio exchange is played to `agent`, started through the
 * stdio recorder into `out` (one agent, one exchange, as `record --stdio` makes them); any other
 * exchange is skipped with why.
 */
async function runStdioRedrive(script: ReplayScript, agent: NonNullable<RedriveOptions['agent']>, options: RedriveOptions): Promise<RedriveResult> {
  const skipped: RedriveResult['skipped'] = [];
  let chosen: ScriptExchange | undefined;
  for (const exchange of script.exchanges) {
    const reason =
      exchange.transport !== 'stdio'
        ? `a ${exchange.transport} exchange (redrive --stdio sends a stdio exchange)`
        : chosen !== undefined
          ? 'another stdio exchange (redrive --stdio starts one agent, for the first)'
          : unsendableReason(exchange);
    if (reason !== undefined) {
      skipped.push({ exchangeId: exchange.id, reason });
      options.progress?.({ kind: 'skipped', exchange, reason });
    } else chosen = exchange;
  }
  if (chosen === undefined) throw new UsageError(`${options.recording} has no stdio exchange to send (redrive --stdio plays one recorded with record --stdio)`);
  const played = await redriveStdioExchange(chosen, { ...agent, out: options.out, overwrite: options.overwrite, pipeline: options.pipeline, pacing: options.pacing, redactFields: redactedFieldsOf(options) });
  options.progress?.({ kind: 'sent', exchange: chosen, missing: [], ...(played.error === undefined ? {} : { error: played.error }) });
  const report = diffRecordingFilesReporting(options.recording, played.out, options.diff ?? {}, options.diffProgress);
  return { out: played.out, sent: 1, skipped, report };
}

/** The recorded answer's JSON values, in order (what answerValues() reads from the live one). */
function recordedAnswerValues(exchange: ScriptExchange): unknown[] {
  return exchange.messages.filter((m) => m.sender === 'server' && m.json !== undefined).map((m) => m.json);
}

/**
 * The script with the given values in place of the fields the recording redacted; refuses (exit 2),
 * before anything is sent, a redacted field no value is given for: the marker would go out as a
 * wrong credential.
 */
function withRedactedValues(script: ReplayScript, values: RedactedValues): ReplayScript {
  const { exchanges, missing } = values.fill(script.exchanges);
  if (missing.length > 0) throw new UsageError(missingValuesMessage(missing, values.source));
  return { ...script, exchanges };
}

/** The fields the new recording redacts again: those given values now (by their names in the file). */
function redactedFieldsOf(options: RedriveOptions): string[] {
  return options.redactedValues?.fields ?? [];
}
