import { KeptBytes } from './kept-bytes.js';

const COLON = 0x3a;
const SPACE = 0x20;
const LF = Buffer.from('\n');
const DATA = Buffer.from('data');
const EVENT = Buffer.from('event');
const ID = Buffer.from('id');
const RETRY = Buffer.from('retry');

/** The fields of one SSE block as its lines complete (see SseFramer). */
export interface SseFieldValues {
  data?: string;
  event?: string;
  id?: string;
  retry?: string;
}

/**
 * Reads the fields of an SSE block one line at a time, keeping only their values: `data:` lines as
 * their bytes (decoded once, when the block ends), the last `event:`, `id:` and `retry:`, and
 * nothing of comments. So what a block holds is bounded by its data bytes, never by how many lines
 * it has; the data bytes themselves by `keepBytes`, beyond which the block is not parsed anyway.
 */
export class SseFields {
  /** The first `data:` value, as a view of its line: the usual event has just one. */
  private firstData?: Buffer;
  /** Every `data:` value joined with LFs, once there is a second. */
  private joined?: KeptBytes;
  private values: SseFieldValues = {};

  constructor(private readonly keepBytes = Number.POSITIVE_INFINITY) {}

  /** One complete, non-blank line of the block, without its line ending. */
  read(line: Buffer): void {
    if (line[0] === COLON) return; // a comment (a keep-alive): nothing to keep
    const colon = line.indexOf(COLON);
    const nameEnd = colon < 0 ? line.length : colon;
    let valueStart = colon < 0 ? line.length : colon + 1;
    if (line[valueStart] === SPACE) valueStart++;
    const value = line.subarray(valueStart);
    if (named(line, nameEnd, DATA)) this.addData(value);
    else if (named(line, nameEnd, EVENT)) this.values.event = value.toString('utf8');
    else if (named(line, nameEnd, ID)) this.values.id = value.toString('utf8');
    else if (named(line, nameEnd, RETRY)) this.values.retry = value.toString('utf8');
  }

  /** Forgets what was read: the block will not be parsed. */
  clear(): void {
    this.values = {};
    this.firstData = undefined;
    this.joined = undefined;
  }

  /** The block's fields; then starts again. */
  take(): SseFieldValues {
    const values = this.values;
    if (this.joined) values.data = this.joined.take().raw.toString('utf8');
    else if (this.firstData) values.data = this.firstData.toString('utf8');
    this.values = {};
    this.firstData = undefined;
    this.joined = undefined;
    return values;
  }

  private addData(value: Buffer): void {
    if (this.firstData === undefined) {
      this.firstData = value;
      return;
    }
    if (this.joined === undefined) {
      this.joined = new KeptBytes(this.keepBytes);
      this.joined.add(this.firstData);
    }
    this.joined.add(LF);
    this.joined.add(value);
  }
}

/** Whether the line's field name (its first `length` bytes) is `name`. */
function named(line: Buffer, length: number, name: Buffer): boolean {
  if (length !== name.length) return false;
  for (let i = 0; i < length; i++) if (line[i] !== name[i]) return false;
  return true;
}
