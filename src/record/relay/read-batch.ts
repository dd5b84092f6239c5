import type { BodyTap } from '../pipeline/recording-sink.js';

/**
 * The recorder's copy of an event stream, one socket read at a time. An agent that writes each
 * event as it comes sends one HTTP chunk per event, and node's parser hands each one on as its own
 * 'data' event, often dozens from a single read. Node already writes them to the client in one
 * writev (a response corks its socket until the next tick); handed to the recorder one by one, each
 * would still cost an op of its own.
 *
 * So the chunks of one read are collected and go to the recorder as one push on the next tick, once
 * the parser has handed on the whole read and before any other I/O, or when the stream ends first.
 * Forwarding is untouched: each chunk is written to the client before its copy gets here.
 */
export class ReadBatch implements BodyTap {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private scheduled = false;

  constructor(private readonly tap: BodyTap) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    if (this.scheduled) return;
    this.scheduled = true;
    process.nextTick(this.flush);
  }

  /** Ends the tap after whatever the last read brought. */
  end(complete: boolean, at?: number): Promise<void> | void {
    this.flush();
    return this.tap.end(complete, at);
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const { chunks } = this;
    if (chunks.length === 0) return;
    this.chunks = [];
    const bytes = this.bytes;
    this.bytes = 0;
    if (chunks.length === 1) this.tap.push(chunks[0]);
    else if (this.tap.pushChunks) this.tap.pushChunks(chunks, bytes);
    else this.tap.push(Buffer.concat(chunks, bytes));
  };
}
