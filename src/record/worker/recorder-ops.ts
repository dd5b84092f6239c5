import type { HttpContext, Sender } from '../../core/message.js';
import type { ChannelHint } from '../../protocols/protocol.js';
import type { ExchangeEnd, ExchangeStart, ExchangeUpdate } from '../../store/recording-writer.js';
import type { GivenHeaders, Headers } from '../../store/store-types.js';
import { HeaderPairs } from '../../net/headers.js';
import type { BodyTapSpec, LinesTapSpec, RecordOptions } from '../pipeline/recording-sink.js';
import { BINARY_FRAME, TEXT_FRAME } from '../pipeline/recording-sink.js';

// The ops stand apart from the thread messages (worker-messages.ts) that carry them in batches:
// op-batch.ts encodes these and the messages name its batches, without either importing the other.

/** HttpContext as it crosses the thread boundary: URLSearchParams does not survive structured clone. */
export type WireHttpContext = Omit<HttpContext, 'query'> & { query?: string };

/** A message's facts as they cross: `at` and `http` have places of their own in the op. */
export type WireRecordOptions = Omit<RecordOptions, 'http' | 'at'>;
export type WireTapSpec = LinesTapSpec | (Omit<BodyTapSpec, 'http'> & { http?: WireHttpContext });

/**
 * Headers as they cross: the redacted raw pairs when capture gave them so (HeaderPairs: an array of
 * strings is cheaper to serialise than the record or its JSON text), or the record a caller gave.
 */
export type WireHeaders = string[] | Headers;
export type WireExchangeStart = Omit<ExchangeStart, 'tOffsetMs' | 'requestHeaders'> & { requestHeaders?: WireHeaders };
export type WireExchangeUpdate = Omit<ExchangeUpdate, 'responseHeaders'> & { responseHeaders?: WireHeaders };

// The copies below name every field instead of spreading the original: on Node 20 an object spread
// with properties added or replaced takes V8's slow path (0.2 to several µs), on every exchange.
// A field left undefined is left out of the batch's JSON, as it was of the spread.

/** An exchange's start for the wire: headers given as pairs cross as the pairs. */
export function toWireStart(start: Omit<ExchangeStart, 'tOffsetMs'>): WireExchangeStart {
  const headers = start.requestHeaders;
  if (!(headers instanceof HeaderPairs)) return start as WireExchangeStart;
  return {
    transport: start.transport,
    protocol: start.protocol,
    method: start.method,
    path: start.path,
    query: start.query,
    url: start.url,
    subprotocol: start.subprotocol,
    requestHeaders: headers.pairs,
  } satisfies Record<keyof WireExchangeStart, unknown>;
}

export function toWireUpdate(update: ExchangeUpdate): WireExchangeUpdate {
  const headers = update.responseHeaders;
  if (!(headers instanceof HeaderPairs)) return update as WireExchangeUpdate;
  return {
    transport: update.transport,
    protocol: update.protocol,
    protocolEvidence: update.protocolEvidence,
    status: update.status,
    responseHeaders: headers.pairs,
    subprotocol: update.subprotocol,
    tls: update.tls,
    stdinEndedMs: update.stdinEndedMs,
  } satisfies Record<keyof WireExchangeUpdate, unknown>;
}

/** The worker's side: pairs are given on as pairs, their text and record made when asked for. */
export function fromWireHeaders(headers: WireHeaders): GivenHeaders {
  return Array.isArray(headers) ? new HeaderPairs(headers) : headers;
}

/** What each op is, its first element. */
export const OP = { open: 0, classify: 1, classifyRoute: 2, update: 3, record: 4, tap: 5, push: 6, tapEnd: 7, end: 8 } as const;

/** A whole body (as the body taps record it): its bytes are all there, so it needs no size of its own. */
const WHOLE_JSON_BODY: RecordOptions = Object.freeze({ carrier: 'body', json: true });
const WHOLE_OTHER_BODY: RecordOptions = Object.freeze({ carrier: 'body', json: false });

/**
 * The facts of the commonest messages, sent as their index here instead of as an object: a
 * WebSocket relay records every frame with one of the first two (by identity), and a REST exchange
 * its body with one of the others (recordPresetOf).
 */
export const RECORD_PRESETS: readonly RecordOptions[] = [TEXT_FRAME, BINARY_FRAME, WHOLE_JSON_BODY, WHOLE_OTHER_BODY];

/**
 * The facts of preset `index` with a message's time and HTTP context: what `{ ...RECORD_PRESETS[index], at, http }`
 * gives (the same keys in the same order), written out because the worker does it for every WebSocket frame and
 * REST body, and on Node 20 a spread that adds keys takes V8's slow path (~0.1-0.2 µs against ~0.05 µs here).
 */
export function presetRecordOptions(index: number, at: number, http: HttpContext | undefined): RecordOptions {
  const { carrier, channel, json } = RECORD_PRESETS[index];
  if (channel === undefined) return { carrier, json, at, http };
  return json === undefined ? { carrier, channel, at, http } : { carrier, channel, json, at, http };
}

/**
 * Every fact a message may carry. Listed so that a fact added to MessageFacts fails to compile here
 * until recordPresetOf looks at it too: a preset must never drop a fact.
 */
const FACTS_SEEN = { carrier: true, channel: true, value: true, parseError: true, parseCost: true, payload: true, totalBytes: true, json: true, judge: true } as const satisfies Record<keyof WireRecordOptions, true>;
void FACTS_SEEN;

/**
 * The index of `options`' preset for a message of `bytes` bytes, or -1. A body's size is the size of
 * its bytes unless `totalBytes` says more (message-pipeline's `read`), so one that says the same is
 * the preset without it. Reads fields instead of making a copy without `http` and `at`: the body of
 * every REST exchange comes here.
 */
export function recordPresetOf(options: RecordOptions, bytes: number): number {
  if (options === TEXT_FRAME) return 0;
  if (options === BINARY_FRAME) return 1;
  if (
    options.carrier !== 'body' ||
    (options.totalBytes !== undefined && options.totalBytes !== bytes) ||
    options.channel !== undefined ||
    options.value !== undefined ||
    options.parseError !== undefined ||
    options.parseCost !== undefined ||
    options.payload !== undefined ||
    options.judge !== undefined
  ) {
    return -1;
  }
  if (options.json === true) return 2;
  if (options.json === false) return 3;
  return -1;
}

/**
 * An HTTP context that is the exchange's own route (its start's method and path, no query) is sent
 * as its status alone (0: none, the request's side): method and path are not repeated in each op.
 */
export type WireHttp = WireHttpContext | number | null;

/**
 * Capture thread → recording worker, in order, in batches (encoded by op-batch.ts). Each op is a
 * tuple, not an object: a REST exchange takes six of them, and property names would be most of
 * what is serialised on the forwarding thread and parsed again in the worker.
 */
export type RecorderOp =
  | [op: typeof OP.open, id: number, at: number, start: WireExchangeStart]
  | [op: typeof OP.classify, id: number, hint: ChannelHint]
  /** A hint of the exchange's own method and path: only its transport and content type cross. */
  | [op: typeof OP.classifyRoute, id: number, transport: ChannelHint['transport'], contentType: string | null]
  | [op: typeof OP.update, id: number, update: WireExchangeUpdate]
  /** `facts`: an index into RECORD_PRESETS, or the options themselves. */
  | [op: typeof OP.record, id: number, sender: Sender, raw: Buffer, at: number, facts: WireRecordOptions | number, http: WireHttp]
  | [op: typeof OP.tap, id: number, tap: number, spec: WireTapSpec]
  /** `chunk`: several chunks (one socket read) on the capture thread; one Buffer of them all in the worker. */
  | [op: typeof OP.push, tap: number, chunk: Buffer | readonly Buffer[], at: number]
  | [op: typeof OP.tapEnd, tap: number, complete: boolean, at: number]
  | [op: typeof OP.end, id: number, at: number, end: Omit<ExchangeEnd, 'tOffsetMs'>];

/** An op as the worker has it (decodeBatch): the chunks of a push are one Buffer there. */
export type DecodedOp = Exclude<RecorderOp, [typeof OP.push, ...unknown[]]> | [op: typeof OP.push, tap: number, chunk: Buffer, at: number];

export function toWireHttp(http: HttpContext | undefined): WireHttpContext | undefined {
  if (!http) return undefined;
  const wire: WireHttpContext = { method: http.method, path: http.path, status: http.status, requestHeaders: http.requestHeaders, responseHeaders: http.responseHeaders };
  if (http.query !== undefined) wire.query = http.query.toString();
  return wire;
}

export function fromWireHttp(http: WireHttpContext | undefined): HttpContext | undefined {
  if (!http) return undefined;
  const context: HttpContext = { method: http.method, path: http.path };
  if (http.query !== undefined) context.query = new URLSearchParams(http.query);
  if (http.status !== undefined) context.status = http.status;
  if (http.requestHeaders !== undefined) context.requestHeaders = http.requestHeaders;
  if (http.responseHeaders !== undefined) context.responseHeaders = http.responseHeaders;
  return context;
}

/** An exchange's method and path, as the capture thread opened it. */
export interface Route {
  method?: string;
  path?: string;
  query?: string;
}

/**
 * `http` for the wire: the route's status alone when it is the exchange's own route, with nothing
 * but a status added (what the HTTP forwarder sends); the whole context otherwise.
 */
export function wireHttpOf(http: HttpContext | undefined, route: Route): WireHttp {
  if (!http) return null;
  if (http.query === undefined && route.query === undefined && http.method === route.method && http.path === route.path && http.requestHeaders === undefined && http.responseHeaders === undefined) {
    return http.status ?? 0;
  }
  return toWireHttp(http)!;
}

/** The worker's side of wireHttpOf. */
export function httpOfWire(http: WireHttp, route: Route): HttpContext | undefined {
  if (http === null) return undefined;
  if (typeof http !== 'number') return fromWireHttp(http);
  const context: HttpContext = { method: route.method!, path: route.path! };
  if (http !== 0) context.status = http;
  return context;
}
