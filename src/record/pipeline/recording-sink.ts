import type { HttpContext, Sender } from '../../core/message.js';
import type { ChannelHint } from '../../protocols/protocol.js';
import type { MessageFacts } from '../../judge/message-pipeline.js';
import type { ExchangeEnd, ExchangeStart, ExchangeUpdate } from '../../store/recording-writer.js';
import type { RecordingTotals } from '../../store/store-types.js';

/** What a recording holds so far (or in the end): store/store-types.ts, where replay's passthrough takes it from too. */
export type { RecordingTotals };

/** Messages larger than this are stored truncated and not parsed, unless --max-body says otherwise. */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

export type BodyKind = 'sse' | 'proto' | 'json' | 'other';

/** Receives a copy of a body's chunks after they were forwarded, and records messages from them. */
export interface BodyTap {
  /** `at`: when the chunk arrived, in recording-clock milliseconds (stamped where it was captured). */
  push(chunk: Buffer, at?: number): void;
  /**
   * The chunks of one socket read as one push, the same as push() of their concatenation. A tap
   * that copies what it is given anyway (the recording worker's) takes them as they are, which saves
   * the forwarding thread a copy and, under a flood, megabytes of buffers awaiting its GC.
   */
  pushChunks?(chunks: readonly Buffer[], bytes: number, at?: number): void;
  /** `complete` is false when the stream was cut (reset, client gone). Resolves once every message is handed on. */
  end(complete: boolean, at?: number): Promise<void> | void;
}

/** A tap that frames an HTTP body (SSE events, protobuf frames, or the whole body as one message). */
export interface BodyTapSpec {
  kind: BodyKind;
  sender: Sender;
  /** Content-Encoding of the body: the tap decodes its copy, the client gets the bytes as sent. */
  contentEncoding?: string;
  /** Route context for whole bodies (Pi REST judges by method, path and status). */
  http?: HttpContext;
}

/** A tap that frames a line-based stream (a stdio stream, one side of an NDJSON socket) into LF lines. */
export interface LinesTapSpec {
  kind: 'lines';
  sender: Sender;
  /** The stdio stream the lines came from. */
  channel?: string;
  /** False for lines that are stored, not judged (a child's stderr). */
  judge?: boolean;
  /** Hold the first lines until one shows whether the exchange speaks Pi RPC or ACP. */
  sniffStdio?: boolean;
}

export type TapSpec = BodyTapSpec | LinesTapSpec;

/** One message handed to the recorder: what the framer knows of it (judge/message-pipeline.ts) and when it came. */
export interface RecordOptions extends MessageFacts {
  http?: HttpContext;
  /** When the message was captured, in recording-clock milliseconds; default: now. */
  at?: number;
}

/** A WebSocket text frame's facts: shared, so that the worker sink can send it as a preset (recorder-ops.ts). */
export const TEXT_FRAME: RecordOptions = Object.freeze({ carrier: 'frame', channel: 'text' });
/** A WebSocket binary frame's facts: stored, not judged. */
export const BINARY_FRAME: RecordOptions = Object.freeze({ carrier: 'frame', channel: 'binary', json: false });

/**
 * What capture code sees of one exchange being recorded. Every call returns at once: the work
 * (framing, parsing, judging, storing) happens after the bytes were forwarded, in this thread or
 * in the recording worker.
 */
export interface ExchangeSink {
  readonly id: number;
  /** Picks the protocol from what is known so far; the first confident answer sticks. */
  classify(hint: ChannelHint): void;
  update(update: ExchangeUpdate): void;
  record(sender: Sender, raw: Buffer, options: RecordOptions): void;
  tap(spec: TapSpec): BodyTap;
  end(end: Omit<ExchangeEnd, 'tOffsetMs'>): void;
}

/** The recorder as capture code sees it. */
export interface RecordingSink {
  readonly maxBodyBytes: number;
  /** `at`: when the exchange started, if before now (a CONNECT recorded once its first bytes show what it carries); default: now. */
  openExchange(start: Omit<ExchangeStart, 'tOffsetMs'>, at?: number): ExchangeSink;
  /** The recording clock's time now, in milliseconds since the recording started: an `at` for a later `openExchange`. */
  now(): number;
  /** True while recording lags so far behind that capture should stop reading until `onDrain`. */
  readonly overloaded: boolean;
  onDrain(listener: () => void): void;
  totals(): RecordingTotals;
  /** Finishes every queued message and closes the recording file. */
  close(endedAt: Date): Promise<RecordingTotals>;
}
