/**
 * Small recordings and files for the CLI error and file-writer tests, written by the tests
 * themselves (never copied from the third-party corpus).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { spawnSync } from 'node:child_process';
import { expect } from 'vitest';
import type { TempDir } from '../support/temp-dir.js';
import { onCleanup } from '../support/cleanups.js';
import { BIN, REPO } from './run-cli.js';
import { verdictsWrittenByHand } from '../support/agreement-pending.js';

/** The AG-UI example shipped in the repository: one SSE run and a plain GET. */
export const AGUI_EXAMPLE = `${REPO}/recordings/examples/agui-sse-run.ndjson`;
/** The Pi daemon example shipped in the repository: REST calls and a framed RPC WebSocket. */
export const PI_EXAMPLE = `${REPO}/recordings/examples/pi-daemon-session.ndjson`;

/** The recording line every NDJSON recording starts with (the example's). */
function recordingLine(): string {
  return readFileSync(AGUI_EXAMPLE, 'utf8').split('\n')[0];
}

/** A recording with its recording line and no exchange at all. */
export function emptyRecording(dir: TempDir, name = 'empty-recording.ndjson'): string {
  writeFileSync(dir.file(name), recordingLine() + '\n');
  return dir.file(name);
}

/** A recording of one Pi RPC session over stdio: nothing that replay over HTTP can serve. */
export function stdioRecording(dir: TempDir, name = 'stdio.ndjson'): string {
  writeFileSync(dir.file(name), [recordingLine(), ...stdioExchangeLines(1)].join('\n') + '\n');
  verdictsWrittenByHand(dir.file(name));
  return dir.file(name);
}

/** The AG-UI example (served over HTTP) with a stdio exchange beside it (served only by replay --stdio). */
export function mixedRecording(dir: TempDir, name = 'mixed.ndjson'): string {
  const example = readFileSync(AGUI_EXAMPLE, 'utf8').split('\n').filter(Boolean);
  writeFileSync(dir.file(name), [...example, ...stdioExchangeLines(3)].join('\n') + '\n');
  verdictsWrittenByHand(dir.file(name));
  return dir.file(name);
}

/** A stdio exchange written by hand: its command is stored valid without the `command-unanswered` a recorder would add. */
function stdioExchangeLines(id: number): string[] {
  const exchange = {
    type: 'exchange', id, transport: 'stdio', protocol: 'pi-rpc', method: null, path: null, query: null, url: null, status: null,
    subprotocol: null, requestHeaders: null, responseHeaders: null, startedMs: 0, endedMs: 5, outcome: 'complete',
    errorCode: null, errorMessage: null, closeCode: null, closeReason: null, exitCode: 0, signal: null,
  };
  const json = { type: 'get_state', id: '1' };
  const message = {
    type: 'message', exchange: id, seq: 1, sender: 'client', carrier: 'line', channel: null, tOffsetMs: 1,
    raw: JSON.stringify(json), rawTruncatedFrom: null, json, verdict: { status: 'valid', schemaRef: null, reason: null, findings: [] },
  };
  return [JSON.stringify(exchange), JSON.stringify(message)];
}

/** The AG-UI example as a `.db`, made by the built CLI's import. */
export function exampleDb(dir: TempDir, name = 'example.db'): string {
  if (exampleDbBytes === undefined) {
    const result = spawnSync(process.execPath, [BIN, 'import', AGUI_EXAMPLE, '--out', dir.file(name)], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    exampleDbBytes = readFileSync(dir.file(name));
  } else writeFileSync(dir.file(name), exampleDbBytes);
  return dir.file(name);
}

/**
 * The bytes of the first import a test file made of the example: later ones are copies of it, the
 * same bytes (an import is ~0.3 s of CPU in a process of its own; one file asks for six).
 */
let exampleDbBytes: Buffer | undefined;

/** A TCP port something else already listens on (127.0.0.1), released after the test. */
export async function busyPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as { port: number }).port;
}
