import type { Sender } from '../../core/message.js';
import type { ReadMessage } from '../../judge/message-pipeline.js';
import { PROTOCOL_SAMPLE_SIZE } from '../../judge/protocol-choice.js';
import type { ChannelHint } from '../../protocols/protocol.js';
import type { RecordOptions } from './recording-sink.js';

/** A frame read and held back (it was forwarded already) until the connection's protocol is chosen. */
export interface HeldFrame {
  sender: Sender;
  raw: Buffer;
  options: RecordOptions;
  message: ReadMessage;
  tOffsetMs: number;
}

/** Frames held at most, whatever they are: binary frames do not vote, but must not pile up. */
const MAX_HELD_FRAMES = 4 * PROTOCOL_SAMPLE_SIZE;
/** ... and their bytes: a few huge frames would otherwise sit in the recorder's heap. */
const MAX_HELD_BYTES = 1024 * 1024;
/**
 * ... and for this long after the first: held frames are not on disk yet, so a quiet connection
 * must not keep them from it (a kill would lose them). About the writer's own batching window.
 */
export const MAX_HOLD_MS = 1000;

/**
 * The first frames of a WebSocket whose subprotocol and path name no protocol. `validate` chooses
 * such a stream's protocol from its first PROTOCOL_SAMPLE_SIZE JSON messages (chooseProtocol's
 * sample); `record` holds the frames back until it has as many (or the connection ends), so that
 * both choose from the same evidence, and then judges and stores them in order.
 */
export class FrameSample {
  /** The parsed values that vote, in arrival order. */
  readonly values: unknown[] = [];
  readonly held: HeldFrame[] = [];
  private bytes = 0;

  constructor(readonly hint: ChannelHint) {}

  /** Holds one frame; true when the sample is complete (or holding more would cost too much). */
  hold(frame: HeldFrame): boolean {
    this.held.push(frame);
    this.bytes += frame.raw.length;
    if (frame.message.value !== undefined) this.values.push(frame.message.value);
    return this.values.length >= PROTOCOL_SAMPLE_SIZE || this.held.length >= MAX_HELD_FRAMES || this.bytes > MAX_HELD_BYTES;
  }
}
