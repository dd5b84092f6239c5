import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { isLoopbackHost } from '../../net/loopback.js';
import type { LiveEvent } from '../../record/live-events.js';
import { listenFailure } from '../../net/listen-failure.js';
import { diffRecordingFiles } from '../../diff/diff-recordings.js';
import type { DiffReport } from '../../diff/diff-report.js';
import { refuseUnrelated } from '../../diff/nothing-in-common.js';
import type { LivePush } from '../api-types.js';
import { relabelDiff } from './diff-labels.js';
import { hostAllowed } from './host-check.js';
import { inspectorListen } from './inspector-listen.js';
import { InspectorData } from './inspector-data.js';
import { indexHtml, STYLE_CSS } from './page.js';
import { HttpError } from './http-error.js';
import { recordingRoute } from './recording-api.js';

export interface InspectorOptions {
  /** The recording to show (.db or .ndjson). */
  recording: string;
  /** `[host:]port` or a port number; 0 picks a free one. Default 127.0.0.1:8790. */
  listen?: string | number;
  /** A second recording: the page gets a diff view of `proxy diff <recording> <diff>`. */
  diff?: string;
  /** The recording is still being written (`proxy record --ui`): the server polls it and pushes changes. */
  live?: boolean;
  /** How often a live recording is polled for new rows, in ms (default 150). */
  pollMs?: number;
  /**
   * Listen on an address other machines can reach (`0.0.0.0`, a LAN address). Without it such an
   * address is refused: whoever can reach the inspector can read the whole recording.
   */
  allowRemote?: boolean;
  /** The option `listen` came from, named in an error about it (default `--listen`; `record` says `--ui`). */
  listenFlag?: string;
}

export interface RunningInspector {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  /** True when it listens on an address other machines can reach (only with `allowRemote`). */
  readonly remote: boolean;
  /** Forwards a recorder event to every open page (SSE). Hand this to RecorderOptions.listener. */
  publish(event: LiveEvent): void;
  close(): Promise<void>;
}

export { DEFAULT_INSPECTOR_PORT } from './inspector-listen.js';

/** Most exchanges the page carries inside (about 250 bytes each); a bigger timeline is fetched. */
const MAX_EMBEDDED_EXCHANGES = 10_000;

/**
 * The compiled page scripts. From dist/ui/server they sit in dist/ui/web; when this module runs
 * from the TypeScript sources (vitest), the build output next to src is used.
 */
function webDir(): string | undefined {
  for (const candidate of ['../web/', '../../../dist/ui/web/']) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(dir + 'app.js')) return dir;
  }
  return undefined;
}

/** Starts the inspector's HTTP server: the page, its scripts and the JSON API over one recording. */
export async function startInspector(options: InspectorOptions): Promise<RunningInspector> {
  const listenFlag = options.listenFlag ?? '--listen';
  const listen = inspectorListen(options.listen, options.allowRemote, listenFlag);
  const remote = !isLoopbackHost(listen.host);
  const data = InspectorData.open(options.recording);
  let diff: DiffReport | undefined;
  let dataB: InspectorData | undefined;
  try {
    if (options.diff !== undefined) {
      dataB = InspectorData.open(options.diff);
      const report = diffRecordingFiles(options.recording, options.diff);
      // The same rule and words as `proxy diff`: recordings of different things are refused, not listed.
      refuseUnrelated(report, options.recording, options.diff);
      diff = relabelDiff(report, data, dataB);
    }
  } catch (error) {
    data.close();
    dataB?.close();
    throw error;
  }
  const closeData = () => {
    data.close();
    dataB?.close();
  };
  const live = Boolean(options.live);
  const scripts = webDir();
  const clients = new Set<ServerResponse>();

  const push = (message: LivePush) => {
    const frame = `data: ${JSON.stringify(message)}\n\n`;
    for (const res of clients) res.write(frame);
  };

  let lastMarks = live ? data.marks() : '';
  const poller = live
    ? setInterval(() => {
        if (clients.size === 0) return;
        try {
          const marks = data.marks();
          if (marks !== lastMarks) {
            lastMarks = marks;
            push({ type: 'tick' });
          }
        } catch {
          // A transient SQLITE_BUSY while the writer checkpoints: try again on the next tick.
        }
      }, options.pollMs ?? 150)
    : undefined;
  poller?.unref();
  const keepAlive = setInterval(() => {
    for (const res of clients) res.write(': keep-alive\n\n');
  }, 15_000);
  keepAlive.unref();

  const api = (req: IncomingMessage, res: ServerResponse, url: URL): unknown => {
    const parts = url.pathname.split('/').filter(Boolean).slice(1);
    if (parts[0] === 'b') {
      if (dataB === undefined) throw new HttpError(404, 'no --diff recording was given');
      const answer = recordingRoute(dataB, parts.slice(1), url.searchParams, { live: false, diff: true });
      if (answer === undefined) throw new HttpError(404, `no API route ${url.pathname}`);
      return answer;
    }
    const answer = recordingRoute(data, parts, url.searchParams, { live, diff: diff !== undefined });
    if (answer !== undefined) return answer;
    if (parts[0] === 'diff' && parts.length === 1) {
      if (diff === undefined) throw new HttpError(404, 'no --diff recording was given');
      return diff;
    }
    if (parts[0] === 'live' && parts.length === 1) {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
      res.write(`retry: 1000\ndata: ${JSON.stringify({ type: 'hello', totals: data.recording({ live, diff: false }).totals } satisfies LivePush)}\n\n`);
      clients.add(res);
      req.on('close', () => clients.delete(res));
      return undefined;
    }
    throw new HttpError(404, `no API route ${url.pathname}`);
  };

  let port = listen.port;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    // Refuse other host names (DNS rebinding): a page elsewhere must not read the recording through the browser.
    if (!hostAllowed(req.headers.host, port, remote)) {
      sendText(res, 403, 'text/plain', 'forbidden host\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendText(res, 405, 'text/plain', 'method not allowed\n');
      return;
    }
    try {
      // A request target such as `//` or `http://[` is no URL at all: a 400, not the end of the process.
      const url = parseTarget(req.url ?? '/');
      if (url.pathname.startsWith('/api/')) {
        const body = api(req, res, url);
        if (body !== undefined) sendText(res, 200, 'application/json; charset=utf-8', JSON.stringify(body));
        return;
      }
      if (url.pathname === '/' || url.pathname === '/index.html') {
        // The first screen's data goes into the page, so it draws without waiting for a fetch; a
        // recording too big to carry whole (the timeline fetches it then) carries its summary only.
        const recording = data.recording({ live, diff: diff !== undefined });
        const initial = { recording, exchanges: recording.totals.exchanges <= MAX_EMBEDDED_EXCHANGES ? data.exchanges() : undefined };
        return sendText(res, 200, 'text/html; charset=utf-8', indexHtml(initial));
      }
      if (url.pathname === '/app.css') return sendText(res, 200, 'text/css; charset=utf-8', STYLE_CSS);
      const script = /^\/web\/([a-z0-9-]+\.js)$/.exec(url.pathname)?.[1];
      if (script !== undefined) {
        if (scripts === undefined) throw new HttpError(500, 'the page scripts are not built: run `npm run build`');
        if (!existsSync(scripts + script)) throw new HttpError(404, `no script ${script}`);
        return sendText(res, 200, 'text/javascript; charset=utf-8', readFileSync(scripts + script));
      }
      if (url.pathname === '/favicon.ico') return sendText(res, 204, 'image/x-icon', '');
      throw new HttpError(404, `not found: ${url.pathname}`);
    } catch (error) {
      const status = error instanceof HttpError ? error.status : 500;
      if (!res.headersSent) sendText(res, status, 'application/json; charset=utf-8', JSON.stringify({ error: (error as Error).message }));
      else res.destroy();
    }
  };

  const server = createServer(handle);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(listen.port, listen.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    clearInterval(keepAlive);
    if (poller) clearInterval(poller);
    closeData();
    throw listenFailure(error, listen, listenFlag);
  }
  port = (server.address() as AddressInfo).port;
  const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    remote,
    publish(event) {
      if (clients.size === 0) return;
      if (event.type === 'exchange-end') push({ type: 'exchange-end', exchangeId: event.exchangeId, invalid: event.invalid, messages: event.messages });
      else push({ type: 'invalid-message', exchangeId: event.exchangeId, label: event.label, findings: event.findings });
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        clearInterval(keepAlive);
        if (poller) clearInterval(poller);
        for (const res of clients) res.end();
        clients.clear();
        server.close(() => {
          closeData();
          resolve();
        });
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

function parseTarget(target: string): URL {
  try {
    return new URL(target, 'http://inspector');
  } catch {
    throw new HttpError(400, 'the request target is not a valid URL');
  }
}

function sendText(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'",
  });
  res.end(body);
}
