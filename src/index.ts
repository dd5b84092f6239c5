/** Programmatic API: the same jobs as the CLI, for tests and scripts. */
export { startRecorder, defaultRecordingPath } from './capture/start-recorder.js';
export type { RecorderOptions, RunningRecorder, RecordingTotals } from './capture/start-recorder.js';
export { startReplay } from './replay/start-replay.js';
export type { ReplayOptions, RunningReplay, ReplaySummary } from './replay/start-replay.js';
export type { ReplayMiss, ServedExchange, ReplayLog, ReplayContext, MissPolicy } from './replay/replay-context.js';
export { parseTiming, type Timing } from './replay/timing.js';
export { SchemaRegistry } from './schema/schema-registry.js';
export type { SchemaRegistryOptions, SchemaCheck } from './schema/schema-registry.js';
export { readInput } from './validate/read-input.js';
export { validateInput } from './validate/validate-input.js';
export type { ValidationReport, JudgedMessage, ValidationSummary } from './validate/validate-input.js';
export { RecordingReader } from './store/recording-reader.js';
export { RecordingWriter } from './store/recording-writer.js';
export { PROTOCOLS, protocolById, classifyChannel, sniffMessage } from './protocols/catalog.js';
export type { ProtocolId, ProtocolModule, ProtocolChecker, ChannelHint, ReplayHints } from './protocols/protocol.js';
export type { Finding, Severity } from './core/finding.js';
export type { Verdict, VerdictStatus } from './core/verdict.js';
export { ProxyError } from './core/errors.js';
