/**
 * Programmatic API: the same jobs as the CLI, for tests and scripts. Every exported function's
 * options and results are exported as types too; the machinery behind them (replay contexts,
 * protocol modules) is not. test/api/public-api.test.ts pins this list.
 */

// record
export { startRecorder, defaultRecordingPath } from './record/start-recorder.js';
export type { RecorderOptions, RunningRecorder, RecordingTotals } from './record/start-recorder.js';
export type { RecordingPipeline } from './record/open-recording-sink.js';
export type { RecordingRules } from './judge/recording-rules.js';
export type { UpstreamTlsOptions } from './net/upstream-tls.js';
export type { ListenTlsOptions } from './net/listen-tls.js';
export type { LiveEvent, LiveListener, RecordingStopped, StoppedListener } from './record/live-events.js';
export { startStdioRecorder } from './record/relay/stdio-recorder.js';
export type { StdioRecorderOptions, RunningStdioRecorder, StdioResult, StdioProtocol } from './record/relay/stdio-recorder.js';
export { startNdjsonRecorder } from './record/relay/ndjson-relay.js';
export type { NdjsonRecorderOptions, RunningNdjsonRecorder } from './record/relay/ndjson-relay.js';

// replay
import { startReplay as serveRecording, type ReplayOptions, type RunningReplay } from './replay/start-replay.js';
import { startMissRecorder } from './record/start-miss-recorder.js';
/**
 * Starts `proxy replay` in-process: a recording served as a deterministic mock server. With
 * `onMiss: 'passthrough'`, misses are forwarded to `target` and recorded by record's pipeline.
 */
export function startReplay(options: ReplayOptions): Promise<RunningReplay> {
  return serveRecording(options, startMissRecorder);
}
export type { ReplayOptions, RunningReplay, ReplaySummary } from './replay/start-replay.js';
export { strictFailure, type StrictFailureInput } from './replay/strict-failure.js';
export type { ScriptExchange, ScriptMessage } from './replay/replay-script.js';
export type { ReplayMiss, ServedExchange, ReplayLog, MissPolicy } from './replay/replay-context.js';
export type { BodyEcho } from './replay/http/request-limits.js';
export { parseTiming, type Timing } from './replay/timing.js';
export { parseFault, type FaultSpec, type FaultAction } from './replay/fault/fault-spec.js';
export type { FaultTally } from './replay/fault/fault-plan.js';
export type { Clock } from './replay/clock.js';
export { replayStdio } from './replay/line/stdio-replay.js';
export type { StdioReplayOptions, StdioReplayResult } from './replay/line/stdio-replay.js';
export type { LineMiss } from './replay/line/line-conversation.js';
export type { LineFrame } from './framing/line-framer.js';
export { startNdjsonReplay } from './replay/line/ndjson-replay.js';
export type { NdjsonReplayOptions, NdjsonReplayLog, NdjsonReplaySummary, RunningNdjsonReplay } from './replay/line/ndjson-replay.js';

// fixture: replay, record once, new episodes, re-record or pass through, as the mode (or AGENT_PROXY_MODE) says
export { startFixture } from './fixture/start-fixture.js';
export type { FixtureOptions, RunningFixture, FixtureSummary } from './fixture/start-fixture.js';
export type { FixtureMode, FixtureAction } from './fixture/fixture-mode.js';

// validate
export { SchemaRegistry } from './schema/schema-registry.js';
export type { SchemaRegistryOptions, SchemaCheck } from './schema/schema-registry.js';
export { readInput } from './validate/read-input.js';
export type { LoadedInput, InputFormat, SourceStream, SourceMessage, ExchangeFinding } from './validate/message-source.js';
export { validateInput } from './validate/validate-input.js';
export type { ValidationReport, JudgedMessage, ValidationSummary } from './validate/validate-input.js';
export type { ChannelHint } from './protocols/protocol.js';
export type { ProtocolId } from './protocols/catalog.js';
export type { Finding, Severity } from './core/finding.js';
export type { Verdict, VerdictStatus } from './core/verdict.js';
export type { Sender, Carrier, HttpContext } from './core/message.js';

// the recording file
export { openRecording } from './store/open-recording.js';
export { RecordingReader } from './store/recording-reader.js';
export type { FindingFilter, FindingListRow } from './store/recording-reader.js';
export { RecordingWriter } from './store/recording-writer.js';
export type { RecordingWriterOptions, RecordingAppendOptions } from './store/recording-writer.js';
export type { FlushSchedule, CancelWrite } from './store/flush-schedule.js';
export type {
  RecordingMeta,
  RecordingInfo,
  ExchangeStart,
  ExchangeUpdate,
  ExchangeEnd,
  MessageInput,
  ExchangeRow,
  MessageRow,
  StoreTotals,
  Transport,
  Outcome,
  Headers,
  GivenHeaders,
} from './store/store-types.js';
// Headers may be handed over already serialised (what the recorder's capture does), as this class.
export type { SerialisedJson } from './core/serialised-json.js';
// The row types are made from the schema's column table, so their building blocks are named too.
export type { ExchangeFields, ExchangeUpdateFields } from './store/schema.js';
export type { TlsFacts } from './core/tls-facts.js';
export type { TunnelFacts } from './core/tunnel-facts.js';
export type { Column, Columns, RowOf, SqlType } from './store/columns.js';

// diff, export, import, inspector
export { diffRecordingFiles } from './diff/diff-recordings.js';
export type { DiffOptions } from './diff/diff-options.js';
export type {
  DiffReport,
  DiffSummary,
  SideInfo,
  ExchangeDiff,
  MessageDiff,
  ExchangeRef,
  MessageRef,
  ValueChange,
  VerdictChange,
  Change as DiffChange,
} from './diff/diff-report.js';
export { exportNdjsonText } from './export/ndjson-export.js';
export { exportHar } from './export/har-export.js';
export type { Har, HarEntry, HarNameValue, HarContent, HarWebSocketMessage } from './export/har-export.js';
export { importNdjsonFile } from './store/ndjson-import.js';
export type { ImportOptions } from './store/ndjson-import.js';
export { startInspector } from './ui/server/inspector-server.js';
export type { InspectorOptions, RunningInspector } from './ui/server/inspector-server.js';

// errors
export { ProxyError } from './core/errors.js';
export type { ErrorCode } from './core/errors.js';
export { StoreError } from './store/store-errors.js';
export type { StoreErrorCode } from './core/errors.js';
