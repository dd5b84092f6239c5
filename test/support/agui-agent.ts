/**
 * AG-UI stand-in agent: a real HTTP server that answers `POST <any path>` with a scripted
 * AG-UI event stream, encoded exactly as `@ag-ui/encoder` does (SSE or length-prefixed protobuf,
 * chosen from the request's Accept header by `EventEncoder`).
 *
 * Used by integration tests as the upstream of the proxy: client → proxy → stand-in, compared
 * with client → stand-in directly. Everything it emits is deterministic (fixed ids, no clocks);
 * only `threadId`/`runId` come from the request.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile, unlink } from 'node:fs/promises';
import { createGzip, constants as zlibConstants } from 'node:zlib';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AddressInfo, Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { EventEncoder } from '@ag-ui/encoder';
import { AGUI_MEDIA_TYPE } from '@ag-ui/proto';
import { EventType, type BaseEvent, type RunAgentInput } from '@ag-ui/core';
import { HttpAgent } from '@ag-ui/client';

export { AGUI_MEDIA_TYPE };

/** A script: the events one run emits. Iterables may be infinite (the writer stops when the client goes). */
export type AguiScript = (input: RunAgentInput) => BaseEvent[] | Iterable<BaseEvent> | AsyncIterable<BaseEvent>;

/** Named scenarios. `fixture:<name>` loads `test/fixtures/agui/<name>.json` (event arrays written for the tests). */
export type AguiScenarioName =
  | 'default'
  | 'broken-content-before-start'
  | 'endless'
  | 'reset-mid-stream'
  | `fixture:${string}`;

/** Where to listen: TCP on 127.0.0.1 (port 0 = ephemeral, the default) or a unix socket path. */
export type StandInListen = { port?: number; host?: string } | { path: string };

export interface AguiAgentOptions {
  /** Script or named scenario for every run (default `'default'`). A request to `POST /scenario/<name>` overrides it per run. */
  script?: AguiScript | AguiScenarioName;
  /** Milliseconds to wait between events (default 0). */
  eventDelayMs?: number;
  /** `'endless'` scenario: milliseconds between TEXT_MESSAGE_CONTENT events (default 20). */
  intervalMs?: number;
  /** `'reset-mid-stream'` scenario: how many events go out before the socket is reset (default 4). */
  resetAfterEvents?: number;
  /**
   * SSE only: hand-written extra framing so byte-exact recording can be tested. A `: keep-alive`
   * comment before the first event and after the last; the 2nd event framed with `event:`/`id:`
   * lines and CRLF line endings (followed by an LF `: keep-alive` comment); the 3rd with LF
   * `id:`/`event:` lines; the 4th with its JSON split over two `data:` lines. Everything still
   * parses with @ag-ui/client's SSE parser and with a spec-compliant SSE parser.
   */
  extraSse?: boolean;
  /** gzip the body (`Content-Encoding: gzip`, Z_SYNC_FLUSH per frame) when Accept-Encoding allows gzip. */
  gzip?: boolean;
  listen?: StandInListen;
  /**
   * Answer CORS as a browser-facing agent does: a preflight (`OPTIONS` with `Origin`) gets 204
   * allowing that origin, `POST` and the asked headers (`Access-Control-Max-Age: 42`), and a run
   * answered to a request with an `Origin` allows it (`Vary: Origin`).
   */
  cors?: boolean;
  /** How the stand-in waits `eventDelayMs` / `intervalMs` (default: a timer); a test passes a ManualClock's sleep to step it. */
  sleep?: (ms: number) => Promise<void>;
}

export interface ReceivedRun {
  method: string;
  /** Request path including the query string. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Raw request body text. */
  rawBody: string;
  /** Parsed RunAgentInput (undefined when the body was not JSON). */
  body: RunAgentInput | undefined;
  /** Scenario name, or 'custom' for a script function. */
  scenario: string;
  /** Content-Type the response was sent with. */
  contentType: string;
  gzip: boolean;
  /** Number of events written so far. */
  eventsSent: number;
  receivedAt: number;
  /** Set when the response's connection closed (finished or not). */
  closedAt: number | undefined;
  /**
   * Resolves true when the client (or a proxy in between) went away before the response finished;
   * false when the response finished normally, or when the stand-in itself reset the socket
   * (`reset-mid-stream`).
   */
  aborted: Promise<boolean>;
  /** Resolves once the stand-in is done with the run: it writes nothing more, eventsSent is final. */
  finished: Promise<void>;
}

export interface AguiAgent {
  /** `http://127.0.0.1:PORT` or `unix:/path/to.sock`. */
  url: string;
  /** TCP port (undefined for a unix socket). */
  port: number | undefined;
  /** Unix socket path (undefined for TCP). */
  socketPath: string | undefined;
  requests: ReceivedRun[];
  close(): Promise<void>;
}

/** `HttpAgent` that asks for protobuf: it overrides `requestInit`, since HttpAgent always forces `Accept: text/event-stream`. */
export class ProtobufHttpAgent extends HttpAgent {
  protected override requestInit(input: RunAgentInput): RequestInit {
    const init = super.requestInit(input);
    return { ...init, headers: { ...(init.headers as Record<string, string>), Accept: AGUI_MEDIA_TYPE } };
  }
}

const FIXTURE_NAME = /^[A-Za-z0-9._-]+$/;

/** The `Access-Control-Max-Age` a stand-in with `cors` answers preflights with: not the replay's own. */
export const PREFLIGHT_MAX_AGE = 42;

/** A run that answers `you said <the first message's text>`: every input gets its own answer. */
export function echoAguiScript(input: RunAgentInput): BaseEvent[] {
  const said = String((input.messages[0] as { content?: unknown }).content);
  return [
    { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId },
    { type: EventType.TEXT_MESSAGE_START, messageId: 'm1', role: 'assistant' },
    { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'm1', delta: `you said ${said}` },
    { type: EventType.TEXT_MESSAGE_END, messageId: 'm1' },
    { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId },
  ] as BaseEvent[];
}

/** The default text run: text message, state snapshot + delta, a tool call with its result. */
export function defaultAguiScript(input: RunAgentInput): BaseEvent[] {
  const { threadId, runId } = input;
  return [
    { type: EventType.RUN_STARTED, threadId, runId },
    { type: EventType.TEXT_MESSAGE_START, messageId: 'msg-1', role: 'assistant' },
    { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'msg-1', delta: 'Hello' },
    { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'msg-1', delta: ' from the' },
    { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'msg-1', delta: ' AG-UI stand-in.' },
    { type: EventType.TEXT_MESSAGE_END, messageId: 'msg-1' },
    { type: EventType.STATE_SNAPSHOT, snapshot: { counter: 0, status: 'working' } },
    {
      type: EventType.STATE_DELTA,
      delta: [
        { op: 'replace', path: '/counter', value: 1 },
        { op: 'replace', path: '/status', value: 'done' },
      ],
    },
    { type: EventType.TOOL_CALL_START, toolCallId: 'call-1', toolCallName: 'get_weather', parentMessageId: 'msg-1' },
    { type: EventType.TOOL_CALL_ARGS, toolCallId: 'call-1', delta: '{"city":' },
    { type: EventType.TOOL_CALL_ARGS, toolCallId: 'call-1', delta: '"Paris"}' },
    { type: EventType.TOOL_CALL_END, toolCallId: 'call-1' },
    { type: EventType.TOOL_CALL_RESULT, messageId: 'tool-result-1', toolCallId: 'call-1', content: '{"tempC":21}', role: 'tool' },
    { type: EventType.RUN_FINISHED, threadId, runId },
  ] as BaseEvent[];
}

function brokenContentBeforeStart(input: RunAgentInput): BaseEvent[] {
  const { threadId, runId } = input;
  return [
    { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'msg-1', delta: 'too early' },
    { type: EventType.RUN_STARTED, threadId, runId },
    { type: EventType.TEXT_MESSAGE_START, messageId: 'msg-1', role: 'assistant' },
    { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'msg-1', delta: 'Hello' },
    { type: EventType.TEXT_MESSAGE_END, messageId: 'msg-1' },
    { type: EventType.RUN_FINISHED, threadId, runId },
  ] as BaseEvent[];
}

function* endless(input: RunAgentInput): Generator<BaseEvent> {
  yield { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId } as BaseEvent;
  yield { type: EventType.TEXT_MESSAGE_START, messageId: 'msg-endless', role: 'assistant' } as BaseEvent;
  for (let i = 1; ; i++) {
    yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'msg-endless', delta: `tick ${i} ` } as BaseEvent;
  }
}

function resetMidStream(input: RunAgentInput): BaseEvent[] {
  // More events than resetAfterEvents (default 4): the stand-in never gets to the end.
  return defaultAguiScript(input);
}

/** Loads a fixture and rewrites its first threadId/runId (wherever they occur) to the input's. */
export async function loadAguiFixture(name: string, input?: Pick<RunAgentInput, 'threadId' | 'runId'>): Promise<BaseEvent[]> {
  if (!FIXTURE_NAME.test(name)) throw new Error(`bad fixture name: ${name}`);
  const url = new URL(`../fixtures/agui/${name}.json`, import.meta.url);
  const events = JSON.parse(await readFile(url, 'utf8')) as BaseEvent[];
  if (!Array.isArray(events)) throw new Error(`fixture ${name} is not an event array`);
  if (!input) return events;
  const first = events.find((e) => e.type === EventType.RUN_STARTED) as { threadId?: string; runId?: string } | undefined;
  const fromThread = first?.threadId;
  const fromRun = first?.runId;
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if (k === 'threadId' && v === fromThread) out[k] = input.threadId;
        else if ((k === 'runId' || k === 'parentRunId') && v === fromRun) out[k] = input.runId;
        else out[k] = rewrite(v);
      }
      return out;
    }
    return value;
  };
  return rewrite(events) as BaseEvent[];
}

async function resolveScript(script: AguiScript | AguiScenarioName, input: RunAgentInput): Promise<Iterable<BaseEvent> | AsyncIterable<BaseEvent>> {
  if (typeof script === 'function') return script(input);
  if (script.startsWith('fixture:')) return loadAguiFixture(script.slice('fixture:'.length), input);
  switch (script) {
    case 'default':
      return defaultAguiScript(input);
    case 'broken-content-before-start':
      return brokenContentBeforeStart(input);
    case 'endless':
      return endless(input);
    case 'reset-mid-stream':
      return resetMidStream(input);
    default:
      throw new Error(`unknown AG-UI scenario: ${script as string}`);
  }
}

function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  for (const part of header.split(',')) {
    const [coding, ...params] = part.trim().split(';').map((s) => s.trim());
    if (coding !== 'gzip' && coding !== '*') continue;
    const q = params.find((p) => p.startsWith('q='));
    if (q && Number(q.slice(2)) === 0) continue;
    return true;
  }
  return false;
}

/** SSE bytes for event #index, with the hand-written extras when requested. */
function sseFrame(encoder: EventEncoder, event: BaseEvent, index: number, extra: boolean): string {
  const standard = encoder.encodeSSE(event);
  if (!extra) return standard;
  const json = standard.slice('data: '.length, -2);
  switch (index) {
    case 0:
      return `: keep-alive\n\n${standard}`;
    case 1:
      // CRLF frame. The LF comment after it matters: @ag-ui/client splits frames on "\n\n" only,
      // so the CRLF frame must be followed by an LF blank line before the next data frame.
      return `event: ${event.type}\r\nid: ${index + 1}\r\ndata: ${json}\r\n\r\n: keep-alive\n\n`;
    case 2:
      return `id: ${index + 1}\nevent: ${event.type}\ndata: ${json}\n\n`;
    case 3: {
      const comma = json.indexOf(',');
      if (comma < 0) return standard;
      return `data: ${json.slice(0, comma + 1)}\ndata: ${json.slice(comma + 1)}\n\n`;
    }
    default:
      return standard;
  }
}

function listenOn(server: Server, listen: StandInListen): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const done = () => {
      server.off('error', reject);
      resolve();
    };
    if ('path' in listen) server.listen(listen.path, done);
    else server.listen(listen.port ?? 0, listen.host ?? '127.0.0.1', done);
  });
}

export async function startAguiAgent(options: AguiAgentOptions = {}): Promise<AguiAgent> {
  const requests: ReceivedRun[] = [];
  const eventDelayMs = options.eventDelayMs ?? 0;
  const intervalMs = options.intervalMs ?? 20;
  const resetAfter = options.resetAfterEvents ?? 4;
  let closing = false;

  async function handleRun(req: IncomingMessage, res: ServerResponse, rawBody: string, finished: Promise<void>): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    let body: RunAgentInput | undefined;
    try {
      body = JSON.parse(rawBody) as RunAgentInput;
    } catch {
      body = undefined;
    }
    const perRequest = /^\/scenario\/([^/]+)$/.exec(url.pathname)?.[1];
    const script: AguiScript | AguiScenarioName = perRequest ? (decodeURIComponent(perRequest) as AguiScenarioName) : (options.script ?? 'default');
    const scenario = typeof script === 'function' ? 'custom' : script;
    const encoder = new EventEncoder({ accept: req.headers.accept });
    const contentType = encoder.getContentType();
    const binary = contentType !== 'text/event-stream';
    const gzip = Boolean(options.gzip) && acceptsGzip(req.headers['accept-encoding']);

    let resolveAborted!: (v: boolean) => void;
    const record: ReceivedRun = {
      method: req.method ?? 'POST',
      path: req.url ?? '/',
      headers: req.headers,
      rawBody,
      body,
      scenario,
      contentType,
      gzip,
      eventsSent: 0,
      receivedAt: Date.now(),
      closedAt: undefined,
      aborted: new Promise<boolean>((r) => (resolveAborted = r)),
      finished,
    };
    requests.push(record);

    let serverReset = false;
    let gone = false;
    res.on('close', () => {
      gone = true;
      record.closedAt = Date.now();
      resolveAborted(!res.writableFinished && !serverReset);
    });

    if (!body || typeof body !== 'object' || typeof body.threadId !== 'string' || typeof body.runId !== 'string') {
      sendJson(res, 400, { error: 'invalid RunAgentInput: threadId and runId are required' });
      return;
    }

    let events: Iterable<BaseEvent> | AsyncIterable<BaseEvent>;
    try {
      events = await resolveScript(script, body);
    } catch (err) {
      sendJson(res, scenario.startsWith('fixture:') ? 404 : 400, { error: (err as Error).message });
      return;
    }

    res.statusCode = 200;
    if (options.cors && req.headers.origin) {
      res.setHeader('Access-Control-Allow-Origin', req.headers.origin);
      res.setHeader('Vary', 'Origin');
    }
    res.setHeader('Content-Type', contentType);
    res.setHeader('Cache-Control', 'no-cache');
    if (gzip) {
      res.setHeader('Content-Encoding', 'gzip');
      res.setHeader('Vary', res.hasHeader('Vary') ? 'Origin, Accept-Encoding' : 'Accept-Encoding');
    }
    res.flushHeaders();

    let out: Writable = res;
    if (gzip) {
      const gz = createGzip({ flush: zlibConstants.Z_SYNC_FLUSH });
      gz.on('error', () => undefined);
      gz.pipe(res);
      res.on('close', () => gz.destroy());
      out = gz;
    }

    // Resolves once the chunk is handed on (write callback), or as soon as the client is gone.
    const write = (chunk: string | Uint8Array) =>
      new Promise<void>((resolve) => {
        if (gone || out.destroyed) return resolve();
        const done = () => {
          res.off('close', done);
          resolve();
        };
        res.once('close', done);
        out.write(chunk, done);
      });

    const delay = scenario === 'endless' ? intervalMs : eventDelayMs;
    // The stand-in's own pacing (a slow agent), never a test's synchronisation: no test reads time off
    // it, and the one that asserts the pacing passes a ManualClock's sleep instead of the timer.
    const wait = options.sleep ?? ((ms: number) => sleep(ms));
    let index = 0;
    for await (const event of events) {
      if (gone || closing) break;
      if (index > 0 && delay > 0) await wait(delay);
      if (gone || closing) break;
      if (scenario === 'reset-mid-stream' && index >= resetAfter) {
        // Every byte written so far must be on its way to the client before the reset, which would discard it.
        await flushed(res, gzip ? out : undefined);
        serverReset = true;
        const socket = res.socket as (Socket & { resetAndDestroy?: () => Socket }) | null;
        if (socket?.resetAndDestroy) socket.resetAndDestroy();
        else socket?.destroy();
        return;
      }
      await write(binary ? encoder.encodeBinary(event) : sseFrame(encoder, event, index, Boolean(options.extraSse)));
      record.eventsSent++;
      index++;
    }
    if (gone) return;
    if (options.extraSse && !binary) await write(': keep-alive\n\n');
    out.end();
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    if (req.method === 'GET' && (url.pathname === '/health' || url.pathname.endsWith('/health'))) {
      sendJson(res, 200, { status: 'ok', agent: 'agui-stand-in' });
      return;
    }
    if (options.cors && req.method === 'OPTIONS' && req.headers.origin) {
      const allow: Record<string, string> = { 'Access-Control-Allow-Origin': req.headers.origin, 'Access-Control-Allow-Methods': 'POST', 'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE), Vary: 'Origin' };
      const asked = req.headers['access-control-request-headers'];
      if (asked) allow['Access-Control-Allow-Headers'] = asked;
      res.writeHead(204, allow).end();
      return;
    }
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      sendJson(res, 405, { error: 'method not allowed' });
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let finish!: () => void;
      const finished = new Promise<void>((r) => (finish = r));
      handleRun(req, res, Buffer.concat(chunks).toString('utf8'), finished)
        .catch((err: unknown) => {
          if (!res.headersSent) sendJson(res, 500, { error: String(err) });
          else res.destroy();
        })
        .finally(finish);
    });
  });

  const listen = options.listen ?? { port: 0 };
  if ('path' in listen) await unlink(listen.path).catch(() => undefined);
  await listenOn(server, listen);
  const address = server.address();
  const port = typeof address === 'object' && address ? (address as AddressInfo).port : undefined;
  const socketPath = 'path' in listen ? listen.path : undefined;
  const url = socketPath ? `unix:${socketPath}` : `http://${'host' in listen && listen.host ? listen.host : '127.0.0.1'}:${port}`;

  return {
    url,
    port,
    socketPath,
    requests,
    close: async () => {
      closing = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(payload) });
  res.end(payload);
}

/**
 * Resolves once everything written to `res` (through `gzip`, when the body is compressed) has been
 * handed to the kernel: the gzip stream flushed, then an empty write on the socket, whose callback
 * runs only after every write queued before it.
 */
async function flushed(res: ServerResponse, gzip: Writable | undefined): Promise<void> {
  if (gzip) await new Promise<void>((resolve) => (gzip as Writable & { flush(cb: () => void): void }).flush(resolve));
  const socket = res.socket;
  if (!socket || socket.destroyed) return;
  await new Promise<void>((resolve) => socket.write(Buffer.alloc(0), () => resolve()));
}
