/**
 * What the recorder-memory and full-disk tests share: an upstream whose routes write whatever bytes
 * a test gives them, and `proxy record --json` (the built CLI) in front of it, as a child process
 * whose NDJSON events a test waits on.
 */
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { spawnCli, type CliProcess } from '../cli/run-cli.js';
import { onCleanup } from '../support/cleanups.js';
import { waitFor } from '../support/waits.js';

/** The answer of every upstream to GET /control: what a test asks after the hostile part, to see the proxy still serves. */
export const CONTROL_BODY = '{"control":true}';

/** An HTTP upstream: each route writes its response; GET /control is always there. */
export async function startUpstream(routes: Record<string, (res: ServerResponse, body: Buffer) => void>): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const route = routes[req.url ?? ''];
      if (route) return route(res, Buffer.concat(chunks));
      if (req.url === '/control') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(CONTROL_BODY);
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
  server.on('connection', (socket) => onCleanup(() => void socket.destroy()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** `proxy record --json` as a child; `url` is where it listens. */
export interface JsonRecorder {
  cli: CliProcess;
  url: string;
  /** Every NDJSON event printed so far. */
  events(): Array<Record<string, unknown>>;
  /** The first event matching, printed or still to come. */
  waitForEvent(match: (event: Record<string, unknown>) => boolean, what: string): Promise<Record<string, unknown>>;
  /** SIGINT, then the exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `spawn` starts the CLI (a full-disk test runs it under a shell that limits file sizes first).
 * `whenDone` takes what kills it if it still runs: after the test by default, or when a recorder
 * shared by several tests is done.
 */
export async function startJsonRecorder(
  target: string,
  out: string,
  extra: string[] = [],
  spawn = (args: string[]) => spawnCli(args),
  whenDone: (kill: () => Promise<void>) => void = onCleanup,
): Promise<JsonRecorder> {
  const cli = spawn(['record', '--target', target, '--listen', '0', '--out', out, '--json', ...extra]);
  whenDone(async () => {
    if (cli.child.exitCode === null && cli.child.signalCode === null) {
      cli.child.kill('SIGKILL');
      await cli.exited;
    }
  });
  const listening = JSON.parse(await cli.waitForLine(/"event":"listening"/)) as { url: string };
  const events = () => cli.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    cli,
    url: listening.url,
    events,
    waitForEvent(match, what) {
      return waitFor(
        () => {
          const event = events().find(match);
          // Once stdout has closed, every line it will ever print is in.
          if (event === undefined && cli.child.stdout.closed) throw new Error(`the proxy exited before its ${what} event; stdout: ${cli.stdout()}; stderr: ${cli.stderr()}`);
          return event;
        },
        `the ${what} event`,
        { wakeOn: [[cli.child.stdout, 'data'], [cli.child.stdout, 'close']] },
      );
    },
    async stop() {
      cli.child.kill('SIGINT');
      return cli.exited;
    },
  };
}

/** An exchange event for `path`. */
export const exchangeFor = (path: string) => (event: Record<string, unknown>) => event.event === 'exchange' && event.path === path;

/** GET (or POST `body`) through the proxy with node:http: the status and the body bytes exactly as they came. */
export function fetchRaw(url: string, options: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {}): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The proxy still serves: a control request through it gets the upstream's answer. */
export async function expectControlServed(recorder: JsonRecorder): Promise<void> {
  const control = await fetchRaw(`${recorder.url}/control`);
  expect(control.status).toBe(200);
  expect(control.body.toString()).toBe(CONTROL_BODY);
}

/** Resolves with the CLI's stderr once it matches `pattern` (stderr and stdout are separate pipes: either may arrive first). */
export function waitForStderr(cli: CliProcess, pattern: RegExp): Promise<string> {
  return waitFor(
    () => {
      if (pattern.test(cli.stderr())) return cli.stderr();
      if (cli.child.stderr.closed) throw new Error(`proxy exited before its stderr matched ${pattern}; stderr: ${cli.stderr()}`);
      return undefined;
    },
    `stderr to match ${pattern}`,
    { wakeOn: [[cli.child.stderr, 'data'], [cli.child.stderr, 'close']] },
  );
}
