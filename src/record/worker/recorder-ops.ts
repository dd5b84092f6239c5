import type { HttpContext, Sender } from '../../core/message.js';
import type { ChannelHint } from '../../protocols/protocol.js';
import type { ExchangeEnd, ExchangeStart, ExchangeUpdate } from '../../store/recording-writer.js';
import type { BodyTapSpec, LinesTapSpec, RecordOptions } from '../pipeline/recording-sink.js';

// The ops stand apart from the thread messages (worker-messages.ts) that carry them in batches:
// op-batch.ts encodes these and the messages name its batches, without either importing the other.

/** HttpContext as it crosses the thread boundary: URLSearchParams does not survive structured clone. */
export type WireHttpContext = Omit<HttpContext, 'query'> & { query?: string };

export type WireRecordOptions = Omit<RecordOptions, 'http'> & { http?: WireHttpContext };
export type WireTapSpec = LinesTapSpec | (Omit<BodyTapSpec, 'http'> & { http?: WireHttpContext });

/** Capture thread → recording worker, in order, in batches (encoded by op-batch.ts). */
export type RecorderOp =
  | { op: 'open'; id: number; start: Omit<ExchangeStart, 'tOffsetMs'>; at: number }
  | { op: 'classify'; id: number; hint: ChannelHint }
  | { op: 'update'; id: number; update: ExchangeUpdate }
  | { op: 'record'; id: number; sender: Sender; raw: Buffer; options: WireRecordOptions }
  | { op: 'tap'; id: number; tap: number; spec: WireTapSpec }
  | { op: 'push'; tap: number; chunk: Buffer; at: number }
  | { op: 'tap-end'; tap: number; complete: boolean; at: number }
  | { op: 'end'; id: number; end: Omit<ExchangeEnd, 'tOffsetMs'>; at: number };

export function toWireHttp(http: HttpContext | undefined): WireHttpContext | undefined {
  if (!http) return undefined;
  const { query, ...rest } = http;
  return query === undefined ? rest : { ...rest, query: query.toString() };
}

export function fromWireHttp(http: WireHttpContext | undefined): HttpContext | undefined {
  if (!http) return undefined;
  const { query, ...rest } = http;
  return query === undefined ? rest : { ...rest, query: new URLSearchParams(query) };
}
