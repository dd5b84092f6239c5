import { redactedText } from '../miss-report.js';
import type { ScriptMessage } from '../replay-script.js';
import type { LiveFrame } from './ws-frames.js';

/** A client frame that matched nothing: where in the recording, and how it differed. */
export interface FrameMiss {
  frame: LiveFrame;
  /** The recorded client frame it was compared with; undefined when none was expected any more. */
  expected: ScriptMessage | undefined;
  differences: string[];
}

/** Longest excerpt of a frame a miss answer quotes. */
const EXCERPT_CHARS = 160;

/**
 * One readable sentence about a text frame that matched nothing, for the protocol's miss answer:
 * `replay miss: frame {"kind":"command",…} does not match recorded frame 4 {"kind":"command",…} at /command/type`.
 */
export function frameMissMessage(miss: FrameMiss): string {
  // Sent back to the client and printed: its secret fields hidden as a recording would.
  const got = excerpt(redactedText(miss.frame.data.toString('utf8')));
  if (!miss.expected) return `replay miss: frame ${got} comes after the recorded conversation ended`;
  const where = miss.differences.length > 0 ? ` at ${miss.differences.slice(0, 5).join(', ')}` : '';
  return `replay miss: frame ${got} does not match recorded frame ${miss.expected.seq} ${excerpt(miss.expected.raw.toString('utf8'))}${where}`;
}

function excerpt(text: string): string {
  return text.length <= EXCERPT_CHARS ? text : text.slice(0, EXCERPT_CHARS) + '…';
}

/** A close frame's reason may hold at most 123 bytes (RFC 6455 §5.5: 125-byte payload minus the code). */
export const MAX_CLOSE_REASON_BYTES = 123;

/**
 * The close reason for a client frame that matched nothing, as much as fits in 123 bytes: which
 * recorded frame it was compared with, the differing JSON pointers, then what came in.
 * e.g. `replay miss vs recorded frame 4 at /command/type; got {"kind":"command",...`
 */
export function frameMissReason(expected: ScriptMessage | undefined, differences: readonly string[], got: unknown): string {
  const where = expected ? `replay miss vs recorded frame ${expected.seq} at ${differences.join(', ')}` : 'replay miss: the recording expects no more client frames';
  const text = typeof got === 'string' ? got : JSON.stringify(got);
  return truncateUtf8(`${where}; got ${text}`, MAX_CLOSE_REASON_BYTES);
}

/** The longest prefix of `text` within `maxBytes` of UTF-8 that does not split a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let out = '';
  let bytes = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (bytes + size > maxBytes) break;
    out += char;
    bytes += size;
  }
  return out;
}
