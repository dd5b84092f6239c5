/**
 * Small recordings written by hand in the NDJSON export form, for tests that need a given set of
 * exchanges without a stand-in to record them from. Every field the importer checks is filled in;
 * what a test leaves out gets what the recorder would have stored for such an exchange.
 */
import { writeFileSync } from 'node:fs';
import { scratch } from './temp-dir.js';
import { verdictsWrittenByHand } from './agreement-pending.js';
import { RULES_VERSION } from '../../src/core/rules-version.js';
import type { Transport } from '../../src/core/transport.js';
import { exportNdjsonText } from '../../src/export/ndjson-export.js';
import { RecordingReader } from '../../src/store/recording-reader.js';

export interface HandMessage {
  sender: 'client' | 'server';
  /** Default: `frame` on a WebSocket, `event` from an SSE server, `line` on stdio and NDJSON, else `body`. */
  carrier?: 'body' | 'event' | 'frame' | 'line';
  /** Default: `text` on a WebSocket, else none. */
  channel?: string | null;
  /** The message's JSON; its raw bytes are that JSON (an SSE event with its framing). */
  json?: unknown;
  /** Raw text instead, for what is not JSON (a line of stderr). */
  raw?: string;
  /** Default: invalid when a finding is an error, else valid. */
  status?: 'valid' | 'invalid' | 'unchecked';
  findings?: Array<{ rule: string; severity: 'error' | 'warning'; pointer: string; message: string }>;
  /** When it passed, in ms since the recording started (a paced replay waits for it). Default: 1 ms after its exchange started, then 0.1 ms apart. */
  tOffsetMs?: number;
}

export interface HandExchange {
  /** Default `ws`. */
  transport?: Transport;
  protocol?: string | null;
  /** Default `GET` over HTTP and WebSocket. */
  method?: string;
  /** Default `/rpc` over HTTP and WebSocket. */
  path?: string;
  query?: string;
  /** Default 101 on a WebSocket. */
  status?: number;
  subprotocol?: string;
  requestHeaders?: Record<string, string>;
  responseHeaders?: Record<string, string>;
  /** A WebSocket close: either one implies the other (code 1000, an empty reason). */
  closeCode?: number;
  closeReason?: string;
  /** An exchange that ended in an error (outcome `error`), with its stored code and message. */
  error?: { code: string; message: string };
  /** An exchange a side cut short (outcome `aborted`), with its stored code (`E_CLIENT_ABORTED` …) and message. */
  aborted?: { code: string; message: string };
  /** The upstream's TLS facts. */
  tls?: Record<string, unknown>;
  messages: HandMessage[];
}

export interface HandRecordingOptions {
  /**
   * The rules version its verdicts claim to be made by: this build's by default, so that the verdicts
   * written here are read as they are; null for a recording made before the version was stored.
   */
  rulesVersion?: number | null;
}

/** The HTTP side of an AG-UI run over SSE (POST /agent, 200, text/event-stream): spread it and add `messages`. */
export const AGUI_SSE_RUN = {
  transport: 'sse',
  protocol: 'agui',
  method: 'POST',
  path: '/agent',
  status: 200,
  responseHeaders: { 'content-type': 'text/event-stream' },
} as const satisfies Omit<HandExchange, 'messages'>;

/**
 * A Pi daemon RPC burst: two commands in flight, one answered, the other refused by an over-capacity
 * rejection without an id. Stored before `response-uncorrelatable` existed, it carries no finding.
 */
export const PI_RPC_UNCORRELATED_REJECTION: HandExchange = {
  protocol: 'pi-daemon-rpc',
  path: '/v1/session/pd-x/rpc',
  subprotocol: 'pi-daemon-rpc.v1',
  messages: [
    { sender: 'client', json: { kind: 'command', command: { id: 'c1', type: 'get_state' } } },
    { sender: 'client', json: { kind: 'command', command: { id: 'c2', type: 'get_state' } } },
    { sender: 'server', json: { kind: 'response', response: { id: 'c1', type: 'response', command: 'get_state', success: true, data: {} } } },
    { sender: 'server', json: { kind: 'response', response: { type: 'response', command: 'get_state', success: false, error: 'rpc_in_flight_capacity' } } },
  ],
};

/** A recording's NDJSON export, as `export` writes it. */
export function exportedNdjson(file: string): string {
  const reader = RecordingReader.open(file);
  try {
    return exportNdjsonText(reader);
  } finally {
    reader.close();
  }
}

/** The NDJSON text of a recording holding `exchanges`, numbered from 1, each 10 ms after the last. */
export function ndjsonRecording(exchanges: readonly HandExchange[], options: HandRecordingOptions = {}): string {
  const rulesVersion = options.rulesVersion === undefined ? RULES_VERSION : options.rulesVersion;
  const lines: unknown[] = [
    {
      type: 'recording',
      format: 'agent-proxy/ndjson',
      version: 1,
      toolVersion: '0.1.0',
      target: 'http://127.0.0.1:1',
      listen: null,
      mode: 'record',
      startedAt: '2026-12-01T00:00:00.000Z',
      endedAt: '2026-12-01T00:00:10.000Z',
      schemaHashes: {},
      ...(rulesVersion === null ? {} : { rulesVersion }),
    },
  ];
  exchanges.forEach((e, index) => {
    const id = index + 1;
    const startedMs = id * 10;
    const transport = e.transport ?? 'ws';
    const ws = transport === 'ws';
    const overHttp = ws || transport === 'http' || transport === 'sse' || transport === 'proto';
    const path = e.path ?? (overHttp ? '/rpc' : undefined);
    const closed = e.closeCode !== undefined || e.closeReason !== undefined;
    const lastOffset = Math.max(0, ...e.messages.map((m) => m.tOffsetMs ?? 0));
    lines.push({
      type: 'exchange',
      id,
      transport,
      protocol: e.protocol ?? null,
      method: e.method ?? (overHttp ? 'GET' : null),
      path: path ?? null,
      query: e.query ?? null,
      url: path === undefined ? null : path + (e.query ? `?${e.query}` : ''),
      status: e.status ?? (ws ? 101 : null),
      subprotocol: e.subprotocol ?? null,
      requestHeaders: e.requestHeaders ?? {},
      responseHeaders: e.responseHeaders ?? {},
      startedMs,
      endedMs: Math.max(startedMs + 5, lastOffset),
      outcome: e.error ? 'error' : e.aborted ? 'aborted' : 'complete',
      errorCode: (e.error ?? e.aborted)?.code ?? null,
      errorMessage: (e.error ?? e.aborted)?.message ?? null,
      closeCode: closed ? (e.closeCode ?? 1000) : null,
      closeReason: closed ? (e.closeReason ?? '') : null,
      exitCode: null,
      signal: null,
      tls: e.tls ?? null,
    });
    e.messages.forEach((m, i) => {
      const findings = m.findings ?? [];
      const carrier = m.carrier ?? (ws ? 'frame' : transport === 'sse' && m.sender === 'server' ? 'event' : transport === 'stdio' || transport === 'ndjson' ? 'line' : 'body');
      lines.push({
        type: 'message',
        exchange: id,
        seq: i + 1,
        sender: m.sender,
        carrier,
        channel: m.channel ?? (ws ? 'text' : null),
        tOffsetMs: m.tOffsetMs ?? startedMs + 1 + i * 0.1,
        // An SSE event is stored with its framing.
        raw: m.raw ?? (carrier === 'event' ? `data: ${JSON.stringify(m.json)}\n\n` : JSON.stringify(m.json)),
        rawTruncatedFrom: null,
        // Without the key the importer stores the message as not JSON.
        ...(m.json === undefined ? {} : { json: m.json }),
        verdict: { status: m.status ?? (findings.some((f) => f.severity === 'error') ? 'invalid' : 'valid'), schemaRef: null, reason: null, findings },
      });
    });
  });
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

/** Writes `ndjsonRecording(exchanges)` into a folder removed after the test; returns the file's path. */
export function writeNdjsonRecording(exchanges: readonly HandExchange[], name = 'hand.ndjson', options: HandRecordingOptions = {}): string {
  const dir = scratch('agent-proxy-hand-');
  verdictsWrittenByHand(dir.dir);
  const file = dir.file(name);
  writeFileSync(file, ndjsonRecording(exchanges, options));
  return file;
}
