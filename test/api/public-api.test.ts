/**
 * The package's public API (src/index.ts, shipped as dist/index.js and dist/index.d.ts), pinned:
 * the names a program can import at run time, and the type of every exported name. Removing,
 * renaming or changing an export fails `npm test` (the type-check of the tests runs over this
 * file); a deliberate change updates the pin here in the same commit.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import * as api from '../../src/index.js';
import { apiSurface, type ApiSurface } from './api-surface.js';
import { closeServerOnCleanup, onCleanup, useCleanups } from '../support/cleanups.js';
import { writeNdjsonRecording } from '../support/ndjson-recording.js';
import { scratch } from '../support/temp-dir.js';
import { startReplay as startReplayAlone } from '../../src/replay/start-replay.js';
// What the schema registry reports about itself; not needed to call anything, so not exported.
import type { SchemaDocument } from '../../src/schema/schema-document.js';
import type { UnresolvedRef } from '../../src/schema/ref-graph.js';

/** A class's public members, as an object type (private members make a class type nominal). */
type Shape<T> = { [K in keyof T]: T[K] };

/** Every name `import { ... } from 'agent-proxy'` finds at run time. */
const RUNTIME_EXPORTS = [
  'ProxyError',
  'RecordingReader',
  'RecordingWriter',
  'SchemaRegistry',
  'StoreError',
  'defaultRecordingPath',
  'diffRecordingFiles',
  'exportHar',
  'exportNdjsonText',
  'importNdjsonFile',
  'openRecording',
  'parseFault',
  'parseTiming',
  'readInput',
  'replayStdio',
  'startFixture',
  'startInspector',
  'startNdjsonRecorder',
  'startNdjsonReplay',
  'startRecorder',
  'startReplay',
  'startStdioRecorder',
  'strictFailure',
  'validateInput',
];

/** The names that exist only as types: the options, results and records the functions above use. */
const TYPE_EXPORTS = [
  'BodyEcho', 'CancelWrite', 'Carrier', 'ChannelHint', 'Clock', 'DiffChange', 'DiffOptions', 'DiffReport', 'DiffSummary',
  'ErrorCode', 'ExchangeDiff', 'ExchangeFinding', 'ExchangeEnd', 'ExchangeFields', 'ExchangeUpdateFields', 'Column', 'Columns', 'RowOf', 'SqlType', 'TlsFacts', 'TunnelFacts', 'ExchangeRef', 'ExchangeRow', 'ExchangeStart',
  'ExchangeUpdate', 'FaultAction', 'GivenHeaders', 'SerialisedJson', 'FaultSpec', 'FaultTally', 'Finding', 'FindingFilter', 'FixtureAction', 'FixtureMode', 'FixtureOptions', 'FixtureSummary', 'FlushSchedule', 'FindingListRow', 'Har', 'HarContent', 'HarEntry',
  'HarNameValue', 'HarWebSocketMessage', 'Headers', 'HttpContext', 'ImportOptions', 'InputFormat',
  'InspectorOptions', 'JudgedMessage', 'LineFrame', 'LineMiss', 'ListenTlsOptions', 'LiveEvent', 'LiveListener', 'LoadedInput',
  'MessageDiff', 'MessageInput', 'MessageRef', 'MessageRow', 'MissPolicy', 'NdjsonRecorderOptions',
  'NdjsonReplayLog', 'NdjsonReplayOptions', 'NdjsonReplaySummary', 'Outcome', 'ProtocolId',
  'RecorderOptions', 'RecordingAppendOptions', 'RecordingPipeline', 'RecordingInfo', 'RecordingMeta', 'RecordingStopped',
  'RecordingRules', 'RecordingTotals', 'RecordingWriterOptions', 'ReplayLog', 'ReplayMiss', 'ReplayOptions', 'ReplaySummary',
  'RunningFixture', 'RunningInspector', 'RunningNdjsonRecorder', 'RunningNdjsonReplay', 'RunningRecorder', 'RunningReplay',
  'RunningStdioRecorder', 'SchemaCheck', 'SchemaRegistryOptions', 'ScriptExchange', 'ScriptMessage',
  'Sender', 'ServedExchange', 'Severity', 'SideInfo', 'SourceMessage', 'SourceStream', 'StdioProtocol',
  'StdioRecorderOptions', 'StdioReplayOptions', 'StdioReplayResult', 'StdioResult', 'StoppedListener',
  'StoreErrorCode', 'StoreTotals', 'StrictFailureInput', 'Timing', 'Transport', 'UpstreamTlsOptions', 'ValidationReport', 'ValidationSummary',
  'ValueChange', 'Verdict', 'VerdictChange', 'VerdictStatus',
];

let surface: ApiSurface;
beforeAll(() => {
  surface = apiSurface();
});

describe('the public API', () => {
  it('exports exactly the pinned names at run time', () => {
    expect(Object.keys(api).sort()).toEqual(RUNTIME_EXPORTS);
  });

  it('exports exactly the pinned names, types included: no internals such as ReplayContext or ProtocolModule', () => {
    expect(surface.names).toEqual([...RUNTIME_EXPORTS, ...TYPE_EXPORTS].sort());
  });

  it('exports every type its functions, constructors and methods take, down to what their callbacks are handed', () => {
    expect(surface.unexportedParameterTypes).toEqual([]);
  });

  it('has the pinned type for every exported name (checked by tsc over the tests)', () => {
    expectTypeOf(api.startRecorder).toEqualTypeOf<(options: api.RecorderOptions) => Promise<api.RunningRecorder>>();
    expectTypeOf(api.defaultRecordingPath).toEqualTypeOf<(now?: Date) => string>();
    expectTypeOf<api.RecorderOptions>().toEqualTypeOf<{
      target: string;
      upstreamTls?: api.UpstreamTlsOptions;
      listenTls?: api.ListenTlsOptions;
      out?: string;
      listen?: string | number;
      protocol?: api.ProtocolId;
      redactHeaders?: string[];
      redactQuery?: string[];
      redactFields?: string[];
      keepSecretsMatching?: string[];
      maxBodyBytes?: number;
      schemas?: string[];
      registry?: api.SchemaRegistry;
      listener?: api.LiveListener;
      onStopped?: api.StoppedListener;
      overwrite?: boolean;
      starting?: (out: string) => Promise<void>;
      pipeline?: api.RecordingPipeline;
      shutdownGraceMs?: number;
    }>();
    expectTypeOf<api.RecordingPipeline>().toEqualTypeOf<'worker' | 'inline'>();
    expectTypeOf<api.RunningRecorder>().toEqualTypeOf<{
      readonly url: string;
      readonly out: string;
      readonly target: string;
      totals: () => api.RecordingTotals;
      close: () => Promise<api.RecordingTotals>;
    }>();
    expectTypeOf<keyof api.RecordingTotals>().toEqualTypeOf<'exchanges' | 'messages' | 'invalid' | 'findings'>();
    expectTypeOf<api.LiveEvent>().toEqualTypeOf<
      | {
          type: 'exchange-end';
          exchangeId: number;
          transport: string;
          protocol?: string;
          method?: string;
          path?: string;
          status?: number;
          outcome: string;
          messages: number;
          invalid: number;
          unchecked: number;
          errorCode?: string;
          errorMessage?: string;
          durationMs: number;
          tOffsetMs: number;
          stored: boolean;
        }
      | {
          type: 'invalid-message';
          exchangeId: number;
          sender: 'client' | 'server';
          label: string;
          status: api.VerdictStatus;
          findings: api.Finding[];
          tOffsetMs: number;
        }
    >();
    expectTypeOf<api.UpstreamTlsOptions>().toEqualTypeOf<{ ca?: string[]; insecure?: boolean }>();
    expectTypeOf<api.ListenTlsOptions>().toEqualTypeOf<{ cert: string; key: string }>();
    expectTypeOf<api.LiveListener>().toEqualTypeOf<(event: api.LiveEvent) => void>();
    expectTypeOf<keyof api.RecordingStopped>().toEqualTypeOf<'reason' | 'code' | 'message' | 'tOffsetMs'>();
    expectTypeOf<api.StoppedListener>().toEqualTypeOf<(event: api.RecordingStopped) => void>();
    expectTypeOf(api.startStdioRecorder).toEqualTypeOf<(options: api.StdioRecorderOptions) => Promise<api.RunningStdioRecorder>>();
    expectTypeOf<api.StdioRecorderOptions>().toEqualTypeOf<{
      command: string;
      args?: string[];
      protocol?: 'pi-rpc' | 'acp' | 'mcp' | 'json-rpc' | 'auto';
      cwd?: string;
      env?: NodeJS.ProcessEnv;
      stdin?: Readable;
      stdout?: Writable;
      stderr?: Writable;
      out?: string;
      maxBodyBytes?: number;
      schemas?: string[];
      redactFields?: string[];
      keepSecretsMatching?: string[];
      registry?: api.SchemaRegistry;
      listener?: api.LiveListener;
      onStopped?: api.StoppedListener;
      overwrite?: boolean;
      pipeline?: api.RecordingPipeline;
    }>();
    expectTypeOf<api.RunningStdioRecorder>().toEqualTypeOf<{
      readonly out: string;
      readonly child: ChildProcess;
      kill: (signal: NodeJS.Signals) => void;
      readonly ready: Promise<void>;
      readonly done: Promise<api.StdioResult>;
    }>();
    expectTypeOf<keyof api.StdioResult>().toEqualTypeOf<'exitCode' | 'signal' | 'code' | 'error' | 'recordingError' | 'totals'>();
    expectTypeOf<api.StdioProtocol>().toEqualTypeOf<'pi-rpc' | 'acp' | 'mcp' | 'json-rpc'>();
    expectTypeOf(api.startNdjsonRecorder).toEqualTypeOf<(options: api.NdjsonRecorderOptions) => Promise<api.RunningNdjsonRecorder>>();
    expectTypeOf<api.NdjsonRecorderOptions>().toEqualTypeOf<{
      target: string;
      listen: string;
      out?: string;
      maxBodyBytes?: number;
      schemas?: string[];
      redactFields?: string[];
      keepSecretsMatching?: string[];
      registry?: api.SchemaRegistry;
      listener?: api.LiveListener;
      onStopped?: api.StoppedListener;
      overwrite?: boolean;
      pipeline?: api.RecordingPipeline;
      shutdownGraceMs?: number;
    }>();
    expectTypeOf<api.RunningNdjsonRecorder>().toEqualTypeOf<{
      readonly url: string;
      readonly out: string;
      readonly target: string;
      totals: () => api.RecordingTotals;
      close: () => Promise<api.RecordingTotals>;
    }>();
    expectTypeOf(api.startReplay).toEqualTypeOf<(options: api.ReplayOptions) => Promise<api.RunningReplay>>();
    expectTypeOf<api.ReplayOptions>().toEqualTypeOf<{
      recording: string;
      timing?: string | api.Timing;
      listen?: string | number;
      onMiss?: api.MissPolicy;
      target?: string;
      upstreamTls?: api.UpstreamTlsOptions;
      listenTls?: api.ListenTlsOptions;
      missesOut?: string;
      overwriteMisses?: boolean;
      missRecording?: api.RecordingRules;
      reuse?: boolean;
      ignore?: string[];
      maxRequestBytes?: number;
      strict?: boolean;
      log?: api.ReplayLog;
      clock?: api.Clock;
      faults?: readonly (string | api.FaultSpec)[];
      cors?: boolean;
      forward?: boolean;
      caDir?: string;
      proxyAuth?: string;
      shutdownGraceMs?: number;
    }>();
    expectTypeOf<api.RunningReplay>().toEqualTypeOf<{
      readonly url: string;
      readonly wsUrl: string;
      readonly recording: string;
      readonly missesOut: string | undefined;
      readonly warnings: string[];
      readonly missAnswers: string;
      misses: () => api.ReplayMiss[];
      unused: () => api.ScriptExchange[];
      close: () => Promise<api.ReplaySummary>;
    }>();
    expectTypeOf<keyof api.ReplaySummary>().toEqualTypeOf<'misses' | 'unused' | 'recorded' | 'strict' | 'ok' | 'faults' | 'missesOut'>();
    expectTypeOf(api.parseFault).toEqualTypeOf<(text: string) => api.FaultSpec>();
    expectTypeOf<keyof api.FaultSpec>().toEqualTypeOf<'text' | 'action' | 'nth' | 'path' | 'method'>();
    expectTypeOf<api.FaultAction['kind']>().toEqualTypeOf<'latency' | 'gap' | 'status' | 'error' | 'cut' | 'close' | 'exit'>();
    expectTypeOf<api.FaultTally>().toEqualTypeOf<{ spec: string; injected: number }>();
    expectTypeOf(api.strictFailure).toEqualTypeOf<(summary: api.StrictFailureInput) => string | undefined>();
    expectTypeOf<api.StrictFailureInput>().toEqualTypeOf<Pick<api.ReplaySummary, 'misses' | 'unused'> & { strict?: boolean; mode?: string }>();
    expectTypeOf(api.startFixture).toEqualTypeOf<(options: api.FixtureOptions) => Promise<api.RunningFixture>>();
    expectTypeOf<api.FixtureOptions>().toEqualTypeOf<{
      recording: string;
      target?: string;
      mode?: api.FixtureMode;
      listen?: string | number;
      timing?: string | api.Timing;
      strict?: boolean;
      reuse?: boolean;
      ignore?: string[];
      maxRequestBytes?: number;
      log?: api.ReplayLog;
      faults?: readonly (string | api.FaultSpec)[];
      cors?: boolean;
      listener?: api.LiveListener;
      upstreamTls?: api.UpstreamTlsOptions;
      listenTls?: api.ListenTlsOptions;
      overwrite?: boolean;
      forward?: boolean;
      caDir?: string;
      proxyAuth?: string;
      protocol?: api.ProtocolId;
      redactHeaders?: string[];
      redactQuery?: string[];
      redactFields?: string[];
      keepSecretsMatching?: string[];
      maxBodyBytes?: number;
      schemas?: string[];
      shutdownGraceMs?: number;
    }>();
    expectTypeOf<api.RecordingRules>().toEqualTypeOf<{
      protocol?: api.ProtocolId;
      redactHeaders?: string[];
      redactQuery?: string[];
      redactFields?: string[];
      keepSecretsMatching?: string[];
      maxBodyBytes?: number;
      schemas?: string[];
    }>();
    expectTypeOf<api.FixtureMode>().toEqualTypeOf<'replay' | 'once' | 'new-episodes' | 'record' | 'passthrough'>();
    expectTypeOf<api.FixtureAction>().toEqualTypeOf<'replay' | 'record' | 'append' | 'forward'>();
    expectTypeOf<api.RunningFixture>().toEqualTypeOf<{
      readonly url: string;
      readonly wsUrl: string;
      readonly recording: string;
      readonly mode: api.FixtureMode;
      readonly modeFrom: 'environment' | 'option' | 'default';
      readonly action: api.FixtureAction;
      readonly warnings: string[];
      readonly missAnswers: string | undefined;
      close: () => Promise<api.FixtureSummary>;
    }>();
    expectTypeOf<api.FixtureSummary>().toEqualTypeOf<{
      mode: api.FixtureMode;
      action: api.FixtureAction;
      recording: string;
      misses: api.ReplayMiss[];
      unused: api.ScriptExchange[];
      forwarded: number;
      written: api.RecordingTotals;
      strict: boolean;
      ok: boolean;
      replay?: api.ReplaySummary;
    }>();
    expectTypeOf<keyof api.ScriptExchange>().toEqualTypeOf<
      | 'id' | 'transport' | 'protocol' | 'method' | 'path' | 'query' | 'url' | 'status' | 'subprotocol'
      | 'requestHeaders' | 'responseHeaders' | 'startedMs' | 'endedMs' | 'outcome' | 'errorCode'
      | 'errorMessage' | 'closeCode' | 'closeReason' | 'stdinEndedMs' | 'messages'
    >();
    expectTypeOf<keyof api.ScriptMessage>().toEqualTypeOf<'seq' | 'sender' | 'carrier' | 'channel' | 'raw' | 'json' | 'tOffsetMs' | 'truncated'>();
    expectTypeOf<keyof api.ReplayMiss>().toEqualTypeOf<'transport' | 'reason' | 'request' | 'limit' | 'nearest' | 'differences' | 'action' | 'faults'>();
    expectTypeOf<keyof api.ServedExchange>().toEqualTypeOf<
      | 'exchangeId' | 'transport' | 'method' | 'path' | 'status' | 'messages' | 'substitutions'
      | 'redacted' | 'reused' | 'recordingCutBy' | 'faults' | 'faultStatus'
    >();
    expectTypeOf<api.ServedExchange['exchangeId']>().toEqualTypeOf<number | null>();
    expectTypeOf<api.ReplayLog>().toEqualTypeOf<{
      served: (event: api.ServedExchange) => void;
      miss: (miss: api.ReplayMiss) => void;
    }>();
    expectTypeOf<keyof api.BodyEcho>().toEqualTypeOf<'body' | 'bodyBytes' | 'bodyTruncated' | 'bodyTooDeep'>();
    expectTypeOf<api.MissPolicy>().toEqualTypeOf<'error' | 'passthrough'>();
    expectTypeOf(api.parseTiming).toEqualTypeOf<(text: string | undefined) => api.Timing>();
    expectTypeOf<api.Timing>().toEqualTypeOf<{ mode: 'recorded'; speed: number; } | { mode: 'none'; }>();
    expectTypeOf<keyof api.Clock>().toEqualTypeOf<'now' | 'sleep'>();
    expectTypeOf(api.replayStdio).toEqualTypeOf<(options: api.StdioReplayOptions) => Promise<api.StdioReplayResult>>();
    expectTypeOf<api.StdioReplayOptions>().toEqualTypeOf<{
      recording: string;
      timing?: string | api.Timing;
      ignore?: string[];
      strict?: boolean;
      maxRequestBytes?: number;
      exchange?: number;
      stdin?: Readable;
      stdout?: Writable;
      stderr?: Writable;
      onMiss?: (miss: api.LineMiss, message: string) => void;
      signal?: AbortSignal;
      clock?: api.Clock;
      faults?: readonly (string | api.FaultSpec)[];
    }>();
    expectTypeOf<keyof api.StdioReplayResult>().toEqualTypeOf<'exchangeId' | 'sent' | 'misses' | 'unused' | 'substitutions' | 'redacted' | 'ok' | 'exitCode' | 'faults'>();
    expectTypeOf<api.StdioReplayResult['exitCode']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<api.StdioReplayResult['faults']>().toEqualTypeOf<api.FaultTally[]>();
    expectTypeOf<keyof api.LineMiss>().toEqualTypeOf<'line' | 'expected' | 'differences' | 'tooLong'>();
    expectTypeOf<keyof api.LineFrame>().toEqualTypeOf<'raw' | 'text' | 'line' | 'unterminated' | 'invalidUtf8' | 'totalBytes'>();
    expectTypeOf(api.startNdjsonReplay).toEqualTypeOf<(options: api.NdjsonReplayOptions) => Promise<api.RunningNdjsonReplay>>();
    expectTypeOf<api.NdjsonReplayOptions>().toEqualTypeOf<{
      recording: string;
      listen: string;
      timing?: string | api.Timing;
      ignore?: string[];
      strict?: boolean;
      maxRequestBytes?: number;
      log?: api.NdjsonReplayLog;
      clock?: api.Clock;
      faults?: readonly (string | api.FaultSpec)[];
      shutdownGraceMs?: number;
    }>();
    expectTypeOf<api.NdjsonReplayLog>().toEqualTypeOf<{
      served: (event: { exchangeId: number; sent: number; misses: number; unused: number; substitutions: number; redacted: number; faults?: string[]; }) => void;
      miss: (message: string, miss?: api.LineMiss | undefined) => void;
    }>();
    expectTypeOf<keyof api.NdjsonReplaySummary>().toEqualTypeOf<'misses' | 'unusedExchanges' | 'unusedLines' | 'ok' | 'faults'>();
    expectTypeOf<api.NdjsonReplaySummary['faults']>().toEqualTypeOf<api.FaultTally[]>();
    expectTypeOf<api.RunningNdjsonReplay>().toEqualTypeOf<{
      readonly url: string;
      readonly recording: string;
      close: () => Promise<api.NdjsonReplaySummary>;
    }>();
    expectTypeOf(api.SchemaRegistry.load).toEqualTypeOf<(options?: api.SchemaRegistryOptions) => api.SchemaRegistry>();
    expectTypeOf<Shape<api.SchemaRegistry>>().toEqualTypeOf<{
      readonly documents: ReadonlyMap<string, SchemaDocument>;
      unresolvedRefs: () => UnresolvedRef[];
      has: (id: string) => boolean;
      hashes: () => Record<string, string>;
      check: (ref: string) => api.SchemaCheck;
      def: (docId: string, name: string) => api.SchemaCheck;
    }>();
    expectTypeOf<api.SchemaRegistryOptions>().toEqualTypeOf<{
      extraDirs?: string[];
      useEnv?: boolean;
      without?: readonly string[];
      compiledValidators?: string | false;
    }>();
    expectTypeOf<api.SchemaCheck>().toEqualTypeOf<
      | { readonly ok: true; readonly ref: string; validate(value: unknown): api.Finding[] }
      | { readonly ok: false; readonly ref: string; readonly reason: string; readonly missing: string[] }
    >();
    expectTypeOf(api.readInput).toEqualTypeOf<(file: string) => api.LoadedInput>();
    expectTypeOf<keyof api.LoadedInput>().toEqualTypeOf<'file' | 'format' | 'streams' | 'exchangeFindings'>();
    expectTypeOf<api.InputFormat>().toEqualTypeOf<'json-array' | 'ndjson' | 'sse' | 'capture'>();
    expectTypeOf<keyof api.SourceStream>().toEqualTypeOf<'label' | 'hint' | 'protocol' | 'ending' | 'status' | 'messages'>();
    expectTypeOf<api.SourceStream['protocol']>().toEqualTypeOf<api.ProtocolId | null | undefined>();
    expectTypeOf<keyof api.SourceMessage>().toEqualTypeOf<'value' | 'sender' | 'line' | 'index' | 'text' | 'http' | 'carrier' | 'exchange' | 'seq' | 'facts' | 'stored' | 'carried'>();
    expectTypeOf(api.validateInput).toEqualTypeOf<(input: api.LoadedInput, registry: api.SchemaRegistry, forced?: api.ProtocolId | undefined) => api.ValidationReport>();
    expectTypeOf<keyof api.ValidationReport>().toEqualTypeOf<'file' | 'format' | 'protocols' | 'messages' | 'exchangeFindings' | 'summary'>();
    expectTypeOf<keyof api.JudgedMessage>().toEqualTypeOf<'index' | 'line' | 'exchange' | 'seq' | 'stream' | 'protocol' | 'sender' | 'label' | 'verdict'>();
    expectTypeOf<keyof api.ValidationSummary>().toEqualTypeOf<'messages' | 'valid' | 'invalid' | 'unchecked' | 'errors' | 'warnings'>();
    expectTypeOf<api.ProtocolId>().toEqualTypeOf<'agui' | 'pi-rest' | 'pi-daemon-rpc' | 'pi-rpc' | 'acp' | 'mcp' | 'unix-ndjson' | 'json-rpc' | 'openai' | 'anthropic'>();
    expectTypeOf<keyof api.ChannelHint>().toEqualTypeOf<'transport' | 'method' | 'path' | 'contentType' | 'subprotocol' | 'requestBody' | 'requestHeaders' | 'firstEvent' | 'sniffed'>();
    expectTypeOf<keyof api.Finding>().toEqualTypeOf<'rule' | 'severity' | 'pointer' | 'message'>();
    expectTypeOf<api.Severity>().toEqualTypeOf<'error' | 'warning'>();
    expectTypeOf<keyof api.Verdict>().toEqualTypeOf<'status' | 'schemaRef' | 'findings' | 'reason'>();
    expectTypeOf<api.VerdictStatus>().toEqualTypeOf<'valid' | 'invalid' | 'unchecked'>();
    expectTypeOf<api.Sender>().toEqualTypeOf<'client' | 'server'>();
    expectTypeOf<api.Carrier>().toEqualTypeOf<'body' | 'event' | 'frame' | 'line'>();
    expectTypeOf<keyof api.HttpContext>().toEqualTypeOf<'method' | 'path' | 'query' | 'status' | 'requestHeaders' | 'responseHeaders'>();
    expectTypeOf(api.openRecording).toEqualTypeOf<(path: string) => api.RecordingReader>();
    expectTypeOf(api.RecordingReader.open).toEqualTypeOf<(path: string) => api.RecordingReader>();
    expectTypeOf<Shape<api.RecordingReader>>().toEqualTypeOf<{
      readonly file: string;
      recording: () => api.RecordingInfo;
      exchanges: () => api.ExchangeRow[];
      exchange: (id: number) => api.ExchangeRow | undefined;
      messages: (exchangeId: number) => api.MessageRow[];
      messagesInOrder: (pageSize?: number) => IterableIterator<api.MessageRow>;
      messagesOf: (exchangeId: number, skip?: number, pageSize?: number) => IterableIterator<api.MessageRow>;
      invalidMessages: () => api.MessageRow[];
      findings: (filter?: api.FindingFilter) => IterableIterator<api.FindingListRow>;
      totals: () => api.StoreTotals;
      close: () => void;
    }>();
    expectTypeOf<keyof api.FindingFilter>().toEqualTypeOf<'rules' | 'severity' | 'exchange'>();
    expectTypeOf<keyof api.FindingListRow>().toEqualTypeOf<
      | 'exchange' | 'transport' | 'protocol' | 'method' | 'path' | 'seq' | 'sender' | 'label' | 'rule'
      | 'severity' | 'pointer' | 'message'
    >();
    expectTypeOf(api.RecordingWriter.open).toEqualTypeOf<(file: string, meta: api.RecordingMeta, options?: api.RecordingWriterOptions) => api.RecordingWriter>();
    expectTypeOf(api.RecordingWriter.append).toEqualTypeOf<(file: string, options?: api.RecordingAppendOptions) => api.RecordingWriter>();
    expectTypeOf<Shape<api.RecordingWriter>>().toEqualTypeOf<{
      readonly file: string;
      readonly startedAt: Date;
      readonly appending: boolean;
      readonly totals: api.StoreTotals;
      readonly pending: number;
      readonly dropped: number;
      readonly failure: api.StoreError | undefined;
      beginExchange: (start: api.ExchangeStart) => number;
      updateExchange: (id: number, update: api.ExchangeUpdate) => void;
      addMessage: (message: api.MessageInput) => number;
      addFindings: (messageId: number, exchangeId: number, findings: api.Finding[], verdict: api.Verdict) => void;
      endExchange: (id: number, end: api.ExchangeEnd) => void;
      restoreExchange: (exchange: Partial<api.ExchangeFields> & Pick<api.ExchangeFields, 'transport' | 'startedMs'>) => number;
      flush: () => void;
      close: (endedAt?: Date | null) => void;
    }>();
    expectTypeOf<api.RecordingWriterOptions>().toEqualTypeOf<{
      flushIntervalMs?: number;
      maxBatch?: number;
      overwrite?: boolean;
      scratch?: boolean;
      pageCacheKib?: number;
      compact?: boolean;
      onError?: (error: api.StoreError) => void;
      keepSecrets?: readonly RegExp[] | 'all';
      schedule?: api.FlushSchedule;
    }>();
    expectTypeOf<api.RecordingAppendOptions>().toEqualTypeOf<{
      flushIntervalMs?: number;
      maxBatch?: number;
      compact?: boolean;
      onError?: (error: api.StoreError) => void;
      keepSecrets?: readonly RegExp[] | 'all';
      schedule?: api.FlushSchedule;
    }>();
    expectTypeOf<api.FlushSchedule>().toEqualTypeOf<{
      later(ms: number, write: () => void): api.CancelWrite;
      soon(write: () => void): api.CancelWrite;
    }>();
    expectTypeOf<keyof api.RecordingMeta>().toEqualTypeOf<'toolVersion' | 'target' | 'listen' | 'mode' | 'schemaHashes' | 'startedAt' | 'rulesVersion'>();
    expectTypeOf<keyof api.RecordingInfo>().toEqualTypeOf<'formatVersion' | 'toolVersion' | 'target' | 'listen' | 'mode' | 'startedAt' | 'endedAt' | 'schemaHashes' | 'rulesVersion'>();
    expectTypeOf<keyof api.ExchangeStart>().toEqualTypeOf<
      | 'transport' | 'protocol' | 'method' | 'path' | 'query' | 'url' | 'subprotocol' | 'requestHeaders'
      | 'tOffsetMs'
    >();
    expectTypeOf<keyof api.ExchangeUpdate>().toEqualTypeOf<'transport' | 'protocol' | 'protocolEvidence' | 'status' | 'responseHeaders' | 'subprotocol' | 'tls' | 'stdinEndedMs'>();
    expectTypeOf<keyof api.ExchangeEnd>().toEqualTypeOf<'outcome' | 'tOffsetMs' | 'errorCode' | 'errorMessage' | 'closeCode' | 'closeReason' | 'exitCode' | 'signal' | 'tunnel'>();
    expectTypeOf<keyof api.MessageInput>().toEqualTypeOf<
      | 'exchangeId' | 'sender' | 'carrier' | 'tOffsetMs' | 'raw' | 'channel' | 'json' | 'jsonText'
      | 'verdict' | 'rawTruncatedFrom'
    >();
    expectTypeOf<keyof api.ExchangeRow>().toEqualTypeOf<
      | 'id' | 'transport' | 'protocol' | 'method' | 'path' | 'query' | 'url' | 'status' | 'subprotocol'
      | 'requestHeaders' | 'responseHeaders' | 'startedMs' | 'endedMs' | 'outcome' | 'errorCode'
      | 'errorMessage' | 'closeCode' | 'closeReason' | 'exitCode' | 'signal' | 'tls' | 'protocolEvidence'
      | 'stdinEndedMs' | 'tunnel' | 'messageCount' | 'invalidCount' | 'uncheckedCount'
    >();
    expectTypeOf<keyof api.MessageRow>().toEqualTypeOf<
      | 'id' | 'exchangeId' | 'seq' | 'sender' | 'carrier' | 'channel' | 'tOffsetMs' | 'raw'
      | 'rawTruncatedFrom' | 'json' | 'deepJson' | 'verdict'
    >();
    expectTypeOf<keyof api.StoreTotals>().toEqualTypeOf<'exchanges' | 'messages' | 'invalid' | 'findings'>();
    expectTypeOf<api.Transport>().toEqualTypeOf<'ndjson' | 'sse' | 'http' | 'proto' | 'ws' | 'stdio' | 'tunnel'>();
    expectTypeOf<api.Outcome>().toEqualTypeOf<'error' | 'complete' | 'aborted' | 'rejected'>();
    expectTypeOf<api.Headers>().toEqualTypeOf<Record<string, string | string[]>>();
    expectTypeOf(api.diffRecordingFiles).toEqualTypeOf<(a: string, b: string, options?: api.DiffOptions) => api.DiffReport>();
    expectTypeOf<api.DiffOptions>().toEqualTypeOf<{
      ignore?: string[];
      semantic?: boolean;
      context?: number;
      schemas?: string[];
    }>();
    expectTypeOf<keyof api.DiffReport>().toEqualTypeOf<'format' | 'version' | 'a' | 'b' | 'options' | 'equal' | 'summary' | 'exchanges'>();
    expectTypeOf<keyof api.DiffSummary>().toEqualTypeOf<'exchanges' | 'messages' | 'regressions' | 'fixes'>();
    expectTypeOf<keyof api.SideInfo>().toEqualTypeOf<'file' | 'exchanges' | 'messages'>();
    expectTypeOf<keyof api.ExchangeDiff>().toEqualTypeOf<'change' | 'a' | 'b' | 'fields' | 'messages'>();
    expectTypeOf<keyof api.MessageDiff>().toEqualTypeOf<'change' | 'a' | 'b' | 'differences' | 'verdict' | 'before' | 'after'>();
    expectTypeOf<keyof api.ExchangeRef>().toEqualTypeOf<'id' | 'transport' | 'protocol' | 'method' | 'path' | 'status'>();
    expectTypeOf<keyof api.MessageRef>().toEqualTypeOf<'seq' | 'sender' | 'label' | 'status'>();
    expectTypeOf<keyof api.ValueChange>().toEqualTypeOf<'pointer' | 'name' | 'a' | 'b'>();
    expectTypeOf<keyof api.VerdictChange>().toEqualTypeOf<'change' | 'a' | 'b' | 'findings'>();
    expectTypeOf<api.DiffChange>().toEqualTypeOf<'changed' | 'added' | 'removed'>();
    expectTypeOf(api.exportNdjsonText).toEqualTypeOf<(reader: api.RecordingReader) => string>();
    expectTypeOf(api.exportHar).toEqualTypeOf<(reader: api.RecordingReader) => api.Har>();
    expectTypeOf<keyof api.Har>().toEqualTypeOf<'log'>();
    expectTypeOf<keyof api.HarEntry>().toEqualTypeOf<
      | 'startedDateTime' | 'time' | 'request' | 'response' | 'cache' | 'timings' | 'comment'
      | '_resourceType' | '_webSocketMessages' | '_tls' | '_tunnel'
    >();
    expectTypeOf<keyof api.HarNameValue>().toEqualTypeOf<'name' | 'value'>();
    expectTypeOf<keyof api.HarContent>().toEqualTypeOf<'size' | 'mimeType' | 'text' | 'encoding'>();
    expectTypeOf<keyof api.HarWebSocketMessage>().toEqualTypeOf<'type' | 'time' | 'opcode' | 'data'>();
    expectTypeOf(api.importNdjsonFile).toEqualTypeOf<(file: string, out: string, options?: api.ImportOptions) => api.StoreTotals>();
    expectTypeOf<api.ImportOptions>().toEqualTypeOf<{
      overwrite?: boolean;
      scratch?: boolean;
      compact?: boolean;
      keepSecrets?: readonly RegExp[] | 'all';
    }>();
    expectTypeOf(api.startInspector).toEqualTypeOf<(options: api.InspectorOptions) => Promise<api.RunningInspector>>();
    expectTypeOf<api.InspectorOptions>().toEqualTypeOf<{
      recording: string;
      listen?: string | number;
      diff?: string;
      live?: boolean;
      pollMs?: number;
      allowRemote?: boolean;
      listenFlag?: string;
    }>();
    expectTypeOf<api.RunningInspector>().toEqualTypeOf<{
      readonly url: string;
      readonly remote: boolean;
      publish: (event: api.LiveEvent) => void;
      close: () => Promise<void>;
    }>();
    expectTypeOf(api.ProxyError).constructorParameters.toEqualTypeOf<[code: api.ErrorCode, message: string, options?: { cause?: unknown }]>();
    expectTypeOf<Shape<api.ProxyError>>().toEqualTypeOf<{
      readonly code: api.ErrorCode;
      name: string;
      message: string;
      stack?: string;
      cause?: unknown;
    }>();
    expectTypeOf<api.ErrorCode>().toEqualTypeOf<
      | 'E_USAGE' | 'E_INPUT_UNREADABLE' | 'E_INPUT_MALFORMED' | 'E_SCHEMA_LOAD' | 'E_PROTOCOL_UNKNOWN'
      | 'E_LISTEN' | 'E_STORE_OPEN' | 'E_STORE_NOT_RECORDING' | 'E_STORE_VERSION' | 'E_STORE_EXISTS' | 'E_STORE_LOCKED'
      | 'E_STORE_WRITE' | 'E_RECORDER_EXITED' | 'E_STORE_STATE' | 'E_STORE_NATIVE'
      | 'E_CA_KEY_EXPOSED' | 'E_CA_INVALID' | 'E_CA_HOST_NAME'
    >();
    expectTypeOf(api.StoreError).constructorParameters.toEqualTypeOf<[code: api.StoreErrorCode, file: string, message: string, options?: { cause?: unknown }]>();
    expectTypeOf(api.StoreError).instance.toExtend<api.ProxyError>();
    expectTypeOf<Shape<api.StoreError>>().toEqualTypeOf<{
      readonly code: api.StoreErrorCode;
      readonly file: string;
      name: string;
      message: string;
      stack?: string;
      cause?: unknown;
    }>();
    expectTypeOf<api.StoreErrorCode>().toEqualTypeOf<
      | 'E_STORE_OPEN' | 'E_STORE_NOT_RECORDING' | 'E_STORE_VERSION' | 'E_STORE_EXISTS' | 'E_STORE_LOCKED' | 'E_STORE_WRITE'
      | 'E_STORE_STATE' | 'E_STORE_NATIVE'
    >();

  });
});

useCleanups();

// The replay alone cannot record (record and replay do not import each other): the package's
// startReplay is the one that wires the recorder in for `onMiss: 'passthrough'`.
describe("the package's startReplay", () => {
  it('forwards a miss to the target and records it, where the replay alone refuses to', async () => {
    const upstream = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"from":"upstream"}'));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    closeServerOnCleanup(upstream);
    const recording = writeNdjsonRecording([{ transport: 'http', method: 'GET', path: '/health', status: 200, messages: [{ sender: 'server', json: { ok: true } }] }]);
    const options = { recording, listen: 0, timing: 'none', onMiss: 'passthrough', target: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, missesOut: scratch().file('misses.db') } as const;

    await expect(startReplayAlone(options)).rejects.toMatchObject({ code: 'E_USAGE' });
    const replay = await api.startReplay(options);
    onCleanup(() => replay.close().then(() => undefined));
    expect(await (await fetch(`${replay.url}/other`)).json()).toEqual({ from: 'upstream' });
    expect((await replay.close()).missesOut).toEqual({ file: options.missesOut, appended: false, totals: expect.objectContaining({ exchanges: 1 }) });
  });
});
