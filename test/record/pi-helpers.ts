/**
 * Shared plumbing for the `proxy record` integration tests against the Pi daemon stand-in:
 * real servers on 127.0.0.1 port 0 (or unix sockets), real clients, SQLite recordings in temp dirs.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { expect } from 'vitest';
import { onCleanup } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';
import { waitFor } from '../support/waits.js';
import { startRecorder, type RecorderOptions, type RunningRecorder } from '../../src/record/start-recorder.js';
import type { LiveEvent } from '../../src/record/live-events.js';
import type { Finding } from '../../src/core/finding.js';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { RecordingReader, type ExchangeRow, type MessageRow } from '../../src/store/recording-reader.js';
import { startPiDaemon, type PiDaemon, type PiDaemonOptions } from '../support/pi-daemon-standin.js';
import { STANDIN_SCHEMAS_DIR } from '../support/shared.js';
import { storedBytes } from '../support/stored-bytes.js';

export { onCleanup, useCleanups } from '../support/cleanups.js';
export { wsOpen, wsRefusal, type Refusal, type WsSession } from '../support/ws-client.js';

export async function daemon(options: PiDaemonOptions = {}): Promise<PiDaemon> {
  const d = await startPiDaemon(options);
  onCleanup(() => d.close());
  return d;
}

export interface Recording {
  recorder: RunningRecorder;
  /** `http://127.0.0.1:PORT` of the proxy. */
  url: string;
  /** `ws://127.0.0.1:PORT` of the proxy. */
  wsUrl: string;
  out: string;
  /** What the recorder told its live listener, in order. */
  events: LiveEvent[];
  /** Resolves once every exchange begun so far has ended (a WebSocket ends when both legs have closed). */
  settled(): Promise<void>;
  /** Waits for every exchange to end, closes the recorder (idempotent) and opens the file. */
  finish(): Promise<RecordingReader>;
}

let schemasExtra: SchemaRegistry | undefined;

/**
 * `proxy record` in-process toward `target`, with our stand-in extra schemas loaded (test/fixtures/schemas-extra-standin), writing into a temp
 * dir. By default the registry is loaded once per test file from the same directories `schemas` would
 * load (compiling the Pi schemas is most of a small test's time); `{fresh: true}` passes
 * `schemas: [STANDIN_SCHEMAS_DIR]` to startRecorder instead, as the CLI's --schemas does.
 */
export async function record(target: string, options: Partial<RecorderOptions> & { fresh?: boolean } = {}): Promise<Recording> {
  const out = scratch('agent-proxy-rec-').file('recording.db');
  const events: LiveEvent[] = [];
  const { fresh, ...rest } = options;
  const schemas = { schemas: [STANDIN_SCHEMAS_DIR] };
  const registry = fresh ? {} : { registry: (schemasExtra ??= SchemaRegistry.load({ extraDirs: schemas.schemas })) };
  const recorder = await startRecorder({ target, listen: 0, out, ...schemas, ...registry, listener: (e) => events.push(e), ...rest });
  let reader: RecordingReader | undefined;
  onCleanup(async () => {
    reader?.close();
    await recorder.close();
  });
  const ended = () => events.filter((e) => e.type === 'exchange-end').length;
  const settled = async () => {
    await waitFor(() => ended() >= recorder.totals().exchanges, 'every exchange to end');
  };
  return {
    recorder,
    url: recorder.url,
    wsUrl: recorder.url.replace(/^http:/, 'ws:'),
    out: recorder.out,
    events,
    settled,
    async finish() {
      await settled();
      await recorder.close();
      reader ??= RecordingReader.open(recorder.out);
      return reader;
    },
  };
}

/** Every byte the recording left on disk: the .db plus any -wal / -shm / -journal beside it. */
export function recordingBytes(out: string): Buffer {
  return storedBytes(out);
}

/** Asserts that `needle` occurs nowhere in `bytes`, as UTF-8 or as UTF-16 (SQLite can store either). */
export function expectAbsent(bytes: Buffer, needle: string, what: string): void {
  expect(bytes.length, 'the recording is empty').toBeGreaterThan(0);
  expect(bytes.indexOf(Buffer.from(needle, 'utf8')), `${what} is in the recording's bytes`).toBe(-1);
  expect(bytes.indexOf(Buffer.from(needle, 'utf16le')), `${what} is in the recording's bytes (UTF-16)`).toBe(-1);
}

// ---------------------------------------------------------------------------------------------
// REST

export interface ApiResult {
  status: number;
  /** Response headers minus Date / Keep-Alive / Connection (they describe one connection or instant). */
  headers: Record<string, string>;
  text: string;
  body: any;
}

const VOLATILE_HEADERS = new Set(['date', 'keep-alive', 'connection']);

export function stableHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (!VOLATILE_HEADERS.has(name.toLowerCase())) out[name.toLowerCase()] = value;
  });
  return out;
}

/** One fetch against `base` (`http://…`), body sent as JSON. */
export async function api(base: string, method: string, path: string, init: { headers?: Record<string, string>; body?: unknown } = {}): Promise<ApiResult> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + path, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const text = await res.text();
  return { status: res.status, headers: stableHeaders(res.headers), text, body: text ? JSON.parse(text) : undefined };
}

/** A plain node:http request over a unix socket or TCP. */
export function rawRequest(
  target: { socketPath: string } | { host: string; port: number },
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ method, path, headers, ...target }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

// ---------------------------------------------------------------------------------------------
// WebSocket

/** Headers of a refusal that must be the same direct and through the proxy. */
export function refusalHeaders(headers: IncomingHttpHeaders): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) if (!VOLATILE_HEADERS.has(name)) out[name] = value;
  return out;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

// ---------------------------------------------------------------------------------------------
// recording assertions

export function errorsOf(messages: MessageRow[]): Array<Finding & { seq: number }> {
  return messages.flatMap((m) => m.verdict.findings.filter((f) => f.severity === 'error').map((f) => ({ ...f, seq: m.seq })));
}

export function findingsOf(messages: MessageRow[]): Array<Finding & { seq: number }> {
  return messages.flatMap((m) => m.verdict.findings.map((f) => ({ ...f, seq: m.seq })));
}

/** The verdicts of the messages that are not control frames, with a readable label when one is off. */
export function verdictsOf(messages: MessageRow[]): string[] {
  return messages.filter((m) => m.channel !== 'close').map((m) => `${m.seq} ${m.verdict.status}${m.verdict.reason ? ` (${m.verdict.reason})` : ''}`);
}

export function expectAllValid(messages: MessageRow[], what: string): void {
  const bad = messages.filter((m) => m.channel !== 'close' && m.verdict.status !== 'valid');
  expect(
    bad.map((m) => ({ seq: m.seq, sender: m.sender, status: m.verdict.status, reason: m.verdict.reason, findings: m.verdict.findings, json: JSON.stringify(m.json)?.slice(0, 200) })),
    `${what}: messages that are not valid`,
  ).toEqual([]);
}

export function wsExchanges(reader: RecordingReader): ExchangeRow[] {
  return reader.exchanges().filter((e) => e.transport === 'ws');
}
