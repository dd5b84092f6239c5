/**
 * Shared helpers for the `proxy record` integration tests: temp dirs, a raw HTTP client that does
 * not decompress or re-frame anything, an SSE block splitter, and a spawned CLI recorder.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:net';
import type { RunAgentInput } from '@ag-ui/core';
import Database from 'better-sqlite3';
import { spawnCli, type CliProcess } from '../cli/run-cli.js';

export const runInput = (threadId = 'thread-1', runId = 'run-1'): RunAgentInput => ({
  threadId,
  runId,
  state: {},
  messages: [{ id: 'u1', role: 'user', content: 'Hi' }],
  tools: [],
  context: [],
  forwardedProps: {},
});

export type Endpoint = { url: string } | { socketPath: string };

/** `http://host:port` or `unix:/path` (as recorders and stand-ins report) to an endpoint. */
export function endpoint(url: string): Endpoint {
  return url.startsWith('unix:') ? { socketPath: url.slice(5) } : { url };
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: Buffer;
}

/** One request with node:http: the body bytes exactly as they arrived (no decompression). */
export function rawRequest(target: Endpoint, method: string, path: string, headers: Record<string, string> | string[] = {}, body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const location = 'url' in target ? new URL(target.url) : undefined;
    const req = httpRequest(
      {
        method,
        path,
        headers,
        agent: false,
        ...(location ? { host: location.hostname, port: Number(location.port) } : { socketPath: (target as { socketPath: string }).socketPath }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** POSTs a RunAgentInput with fetch, asking for SSE. */
export function postRun(url: string, headers: Record<string, string> = {}, input = runInput(), signal?: AbortSignal): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify(input),
    signal,
  });
}

/** Splits an LF-framed SSE body into blocks, each keeping its terminating blank line. */
export function sseBlocks(body: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (;;) {
    const end = body.indexOf('\n\n', start);
    if (end < 0) break;
    out.push(body.subarray(start, end + 2));
    start = end + 2;
  }
  return out;
}

/** A TCP port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}


/** `proxy record …` as a child process, with its stdout split into lines as they arrive. */
export type CliRecorder = CliProcess;

export function spawnRecorder(args: string[], env: NodeJS.ProcessEnv = {}): CliRecorder {
  return spawnCli(['record', ...args], env);
}

/** Server rows a recording has committed so far, as another reader sees them; 0 while the file or its tables do not exist yet. */
export function committedServerRows(file: string): number {
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    return (db.prepare("SELECT count(*) AS n FROM messages WHERE sender = 'server'").get() as { n: number }).n;
  } catch {
    return 0;
  } finally {
    db?.close();
  }
}
