import { STATUS_CODES } from 'node:http';
import { TOOL_VERSION } from '../core/version.js';
import { count } from '../core/plural.js';
import type { TlsFacts } from '../core/tls-facts.js';
import type { TunnelFacts } from '../core/tunnel-facts.js';
import type { RecordingReader } from '../store/recording-reader.js';
import type { ExchangeRow, Headers, MessageRow } from '../store/store-types.js';
import { encodeRaw } from '../store/ndjson-format.js';
import { storedHeader } from '../store/stored-header.js';

/** HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), with Chrome DevTools' WebSocket extension. */
export interface Har {
  log: {
    version: '1.2';
    creator: { name: string; version: string };
    entries: HarEntry[];
    comment?: string;
  };
}

export interface HarNameValue {
  name: string;
  value: string;
}

export interface HarContent {
  size: number;
  mimeType: string;
  text?: string;
  encoding?: 'base64';
}

/** Chrome DevTools' format: `type` send (client → server) or receive, `time` in seconds since the epoch, opcode 1 text / 2 binary. */
export interface HarWebSocketMessage {
  type: 'send' | 'receive';
  time: number;
  opcode: number;
  data: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: never[];
    headers: HarNameValue[];
    queryString: HarNameValue[];
    postData?: { mimeType: string; text: string; encoding?: 'base64' };
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: never[];
    headers: HarNameValue[];
    content: HarContent;
    redirectURL: string;
    headersSize: number;
    bodySize: number;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  comment?: string;
  _resourceType?: string;
  _webSocketMessages?: HarWebSocketMessage[];
  /** The upstream's TLS facts (HAR 1.2 has no field for them; `_` marks a custom one). */
  _tls?: TlsFacts;
  /** A forward proxy's CONNECT tunnel, passed through unread: the bytes each side sent (`request`/`response.bodySize` too). */
  _tunnel?: TunnelFacts;
}

/**
 * Converts a recording to HAR 1.2: one entry per HTTP exchange (plain bodies, SSE and protobuf
 * streams, WebSocket upgrades). An SSE stream's events, framing included, are the response body;
 * a WebSocket's text and binary frames are `_webSocketMessages`. stdio and NDJSON-socket exchanges
 * have no HTTP form and are left out (the log's comment counts them).
 */
export function exportHar(reader: RecordingReader): Har {
  return harOf(reader);
}

/** exportHar, telling `onMessages` how many messages each exchange had (the CLI's progress line). */
export function harOf(reader: RecordingReader, onMessages?: (count: number) => void): Har {
  const info = reader.recording();
  const origin = Date.parse(info.startedAt);
  const entries: HarEntry[] = [];
  let skipped = 0;
  for (const exchange of reader.exchanges()) {
    if (exchange.transport === 'stdio' || exchange.transport === 'ndjson') {
      skipped++;
      continue;
    }
    const messages = reader.messages(exchange.id);
    entries.push(entryOf(exchange, messages, origin, info.target));
    onMessages?.(messages.length);
  }
  const har: Har = { log: { version: '1.2', creator: { name: 'agent-proxy', version: TOOL_VERSION }, entries } };
  if (skipped > 0) har.log.comment = `${count(skipped, 'stdio/NDJSON exchange')} left out: no HTTP form`;
  return har;
}

function entryOf(e: ExchangeRow, messages: MessageRow[], origin: number, target: string | undefined): HarEntry {
  const ws = e.transport === 'ws';
  const client = messages.filter((m) => m.sender === 'client');
  const server = messages.filter((m) => m.sender === 'server');
  const requestBody = ws ? undefined : client[0];
  const responseBytes = ws ? Buffer.alloc(0) : Buffer.concat(server.map((m) => m.raw));
  const mimeType = storedHeader(e.responseHeaders, 'content-type') ?? (responseBytes.length > 0 ? 'application/octet-stream' : 'x-unknown');
  const content: HarContent = { size: responseBytes.length, mimeType };
  if (responseBytes.length > 0) {
    const encoded = encodeRaw(responseBytes);
    if ('raw' in encoded) content.text = encoded.raw;
    else {
      content.text = encoded.rawBase64;
      content.encoding = 'base64';
    }
  }
  const end = e.endedMs ?? messages.at(-1)?.tOffsetMs ?? e.startedMs;
  const firstServer = server[0]?.tOffsetMs ?? end;
  const wait = Math.max(0, firstServer - e.startedMs);
  const entry: HarEntry = {
    startedDateTime: new Date(origin + e.startedMs).toISOString(),
    time: Math.max(0, end - e.startedMs),
    request: {
      method: e.method ?? 'GET',
      url: urlOf(e, target),
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: nameValues(e.requestHeaders),
      queryString: [...new URLSearchParams(e.query ?? '')].map(([name, value]) => ({ name, value })),
      headersSize: -1,
      bodySize: requestBody ? requestBody.raw.length : 0,
    },
    response: {
      status: e.status ?? 0,
      statusText: e.status === null ? '' : (STATUS_CODES[e.status] ?? ''),
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: nameValues(e.responseHeaders),
      content,
      redirectURL: storedHeader(e.responseHeaders, 'location') ?? '',
      headersSize: -1,
      bodySize: responseBytes.length,
    },
    cache: {},
    timings: { send: 0, wait, receive: Math.max(0, end - e.startedMs - wait) },
  };
  if (requestBody) {
    const encoded = encodeRaw(requestBody.raw);
    entry.request.postData = {
      mimeType: storedHeader(e.requestHeaders, 'content-type') ?? 'application/octet-stream',
      ...('raw' in encoded ? { text: encoded.raw } : { text: encoded.rawBase64, encoding: 'base64' as const }),
    };
  }
  if (e.outcome !== 'complete' || e.errorCode !== null) {
    entry.comment = [`outcome ${e.outcome ?? 'open'}`, e.errorCode, e.errorMessage].filter(Boolean).join(': ');
  }
  if (e.tls !== null) entry._tls = e.tls;
  if (e.tunnel !== null) {
    entry._tunnel = e.tunnel;
    entry.request.bodySize = e.tunnel.clientBytes;
    entry.response.bodySize = e.tunnel.serverBytes;
  }
  if (ws) {
    entry._resourceType = 'websocket';
    entry._webSocketMessages = messages
      .filter((m) => m.channel === 'text' || m.channel === 'binary')
      .map((m) => ({
        type: m.sender === 'client' ? 'send' : 'receive',
        time: (origin + m.tOffsetMs) / 1000,
        opcode: m.channel === 'binary' ? 2 : 1,
        data: m.channel === 'binary' ? m.raw.toString('base64') : m.raw.toString('utf8'),
      }));
  }
  return entry;
}

function urlOf(e: ExchangeRow, target: string | undefined): string {
  if (e.url && /^(https?|wss?):\/\//.test(e.url)) return e.url;
  // A CONNECT names host:port alone; HAR wants an absolute URL (the scheme guessed from the port).
  if (e.transport === 'tunnel' && e.url) return `${e.url.endsWith(':443') ? 'https' : 'http'}://${e.url}/`;
  const base = new URL(target && /^https?:\/\//.test(target) ? target : 'http://localhost');
  base.pathname = (base.pathname.replace(/\/$/, '') + (e.path ?? '/')) || '/';
  base.search = e.query ? `?${e.query}` : '';
  if (e.transport === 'ws') base.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:';
  return base.toString();
}

function nameValues(headers: Headers | null): HarNameValue[] {
  if (!headers) return [];
  const out: HarNameValue[] = [];
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : [value]) out.push({ name, value: v });
  }
  return out;
}
