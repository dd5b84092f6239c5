import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { InputError } from '../core/errors.js';
import { SseFramer } from '../framing/sse-framer.js';
import { toSourceMessage, type LoadedInput, type ReadProgress, type SourceMessage, type SourceStream } from './message-source.js';
import { captureProblem, streamsFromCapture, isCaptureDocument } from './capture-input.js';
import { isRecordingBytes, RECORDING_HEAD_BYTES, recordingInput } from './recording-input.js';

const SSE_FIRST_LINE = /^(data|event|id|retry)?:/;

/**
 * Reads a file of messages in any of the forms `proxy validate` accepts: a JSON array, NDJSON/JSONL,
 * a raw SSE body, or a capture document (`{records:[...]}`). A malformed input names the file and line.
 */
export function readInput(file: string): LoadedInput {
  return readInputReporting(file);
}

/** readInput, telling `progress` how far the reading of a recording is (the CLI's progress line); a file is read at once. */
export function readInputReporting(file: string, progress?: ReadProgress): LoadedInput {
  // A recording is told by its first bytes and read by the store: not read whole here first.
  if (isRecordingBytes(readable(file, () => headOf(file)))) return recordingInput(file, progress);
  const bytes = readable(file, () => readFileSync(file));
  if (bytes.subarray(0, 4096).includes(0)) {
    throw new InputError('E_INPUT_MALFORMED', `${file}: binary data, not messages (a JSON array, NDJSON, an SSE body, a capture or a recording)`, { file });
  }
  const text = bytes.toString('utf8');
  const firstLine = firstNonEmptyLine(text);
  if (firstLine === '') throw new InputError('E_INPUT_MALFORMED', `${file}: the file holds no messages`, { file });
  if (SSE_FIRST_LINE.test(firstLine)) return { file, format: 'sse', streams: [readSse(file, bytes)] };
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) return { file, format: 'json-array', streams: [readJsonArray(file, text)] };
  // A single JSON document (a capture, or one message) or NDJSON: try the whole first.
  let whole: unknown;
  let wholeOk = false;
  try {
    whole = JSON.parse(text);
    wholeOk = true;
  } catch {
    /* NDJSON, or malformed: decided below */
  }
  if (wholeOk && isCaptureDocument(whole)) {
    const problem = captureProblem(whole);
    if (problem !== undefined) throw new InputError('E_INPUT_MALFORMED', `${file}: not a capture (${problem})`, { file });
    return { file, format: 'capture', streams: streamsFromCapture(whole) };
  }
  if (wholeOk && !hasLineBreakInside(text)) {
    return { file, format: 'ndjson', streams: [{ label: file, messages: [toSourceMessage(whole, 0, 1)] }] };
  }
  return { file, format: 'ndjson', streams: [readNdjson(file, text)] };
}

/** The file's first bytes, as many as tell a recording (isRecordingBytes). */
function headOf(file: string): Buffer {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(RECORDING_HEAD_BYTES);
    return head.subarray(0, readSync(fd, head, 0, head.length, 0));
  } finally {
    closeSync(fd);
  }
}

function readable<T>(file: string, read: () => T): T {
  try {
    return read();
  } catch (cause) {
    throw new InputError('E_INPUT_UNREADABLE', `${file}: cannot read: ${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message}`, { file, cause });
  }
}

function readJsonArray(file: string, text: string): SourceStream {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw malformed(file, text, cause as Error);
  }
  if (!Array.isArray(parsed)) throw new InputError('E_INPUT_MALFORMED', `${file}:1: expected a JSON array of messages`, { file, line: 1 });
  return { label: file, messages: parsed.map((item, index) => toSourceMessage(item, index)) };
}

/** The first line that is not blank, without a BOM; found without splitting the whole text (it may hold a million lines). */
function firstNonEmptyLine(text: string): string {
  const lineBreak = /\r\n|\r|\n/g;
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (start <= text.length) {
    lineBreak.lastIndex = start;
    const found = lineBreak.exec(text);
    const end = found ? found.index : text.length;
    const line = text.slice(start, end);
    if (line.trim() !== '') return line;
    if (!found) break;
    start = end + found[0].length;
  }
  return '';
}

/** Is there a line break between the first and the last non-blank character? */
function hasLineBreakInside(text: string): boolean {
  const from = text.search(/\S/);
  if (from < 0) return false;
  let to = text.length - 1;
  while (to > from && /\s/.test(text[to])) to--;
  const at = text.indexOf('\n', from);
  return at >= 0 && at < to;
}

function readNdjson(file: string, text: string): SourceStream {
  const messages: SourceMessage[] = [];
  // Line by line with indexOf: split() would hold a second copy of every line at once.
  let start = 0;
  for (let i = 0; start < text.length; i++) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    let line = text.slice(start, end);
    start = end + 1;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (cause) {
      throw new InputError('E_INPUT_MALFORMED', `${file}:${i + 1}: not valid JSON: ${(cause as Error).message}`, { file, line: i + 1, cause });
    }
    // Built in one go, not spread: a million spread copies cost hundreds of megabytes more.
    const message = toSourceMessage(value, messages.length, i + 1);
    message.text = line;
    message.carrier = 'line';
    messages.push(message);
  }
  return { label: file, messages };
}

/** `data: [DONE]`, which ends the streams of OpenAI's API and of the servers that speak it. */
const STREAM_END_MARKER = '[DONE]';

function readSse(file: string, bytes: Buffer): SourceStream {
  const framer = new SseFramer();
  const frames = [...framer.push(bytes), ...framer.end()];
  const messages: SourceMessage[] = [];
  let line = 1;
  for (const frame of frames) {
    const startLine = line;
    line += countLineBreaks(frame.raw);
    if (frame.data === undefined) continue; // comments and keep-alives carry no message
    // The end marker of OpenAI-style streams is no JSON, and no fault: its protocol's checker judges it.
    if (frame.data.trim() === STREAM_END_MARKER) {
      messages.push({ value: undefined, index: messages.length, line: startLine, text: frame.data, carrier: 'event', sender: 'server' });
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(frame.data);
    } catch (cause) {
      throw new InputError('E_INPUT_MALFORMED', `${file}:${startLine}: SSE data is not valid JSON: ${(cause as Error).message}`, { file, line: startLine, cause });
    }
    messages.push({ value, index: messages.length, line: startLine, text: frame.data, carrier: 'event', sender: 'server' });
  }
  return { label: file, hint: { transport: 'sse', contentType: 'text/event-stream' }, messages };
}

function countLineBreaks(raw: Buffer): number {
  let n = 0;
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] === 0x0a) n++;
    else if (raw[i] === 0x0d && raw[i + 1] !== 0x0a) n++;
  }
  return n;
}

function malformed(file: string, text: string, cause: Error): InputError {
  const position = /position (\d+)/.exec(cause.message);
  let line = 1;
  if (position) {
    const upTo = text.slice(0, Number(position[1]));
    line = upTo.split('\n').length;
  }
  return new InputError('E_INPUT_MALFORMED', `${file}:${line}: not valid JSON: ${cause.message}`, { file, line, cause });
}
