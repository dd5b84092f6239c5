import { validateHeaderName, validateHeaderValue } from 'node:http';

/** What Node refuses in a reason phrase or header value: anything but tab, visible ASCII, space and obs-text. */
const UNSENDABLE_TEXT = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * Why a response with this status line cannot be passed on as a final answer, or undefined.
 * Node's own writeHead refuses the first and last cases; a 1xx (only a 101 gets this far: Node
 * consumes the others as interim responses) would leave the client waiting for the real answer.
 */
export function statusLineProblem(status: number, reason: string | undefined): string | undefined {
  if (!Number.isInteger(status) || status < 100 || status > 999) return `status ${status} is not a valid HTTP status`;
  if (status < 200) return `the interim status ${status} is not an answer to this request`;
  if (reason !== undefined && UNSENDABLE_TEXT.test(reason)) return 'the reason phrase holds a control character';
  return undefined;
}

/**
 * Node's HTTP parser was made lenient (`--insecure-http-parser`, on the command line or in
 * NODE_OPTIONS): only then can an upstream head hold a header value no strict peer accepts. Node 24
 * also relaxes what it sends under the flag, so such a head would reach the client as it came.
 */
export const LENIENT_HTTP_PARSER = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].includes('--insecure-http-parser');

/** Why Node would refuse to send one of these header pairs, or undefined. */
export function headersProblem(rawHeaders: readonly string[]): string | undefined {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    try {
      validateHeaderName(rawHeaders[i]);
      validateHeaderValue(rawHeaders[i], rawHeaders[i + 1]);
    } catch (error) {
      return `header "${escapeText(String(rawHeaders[i]))}" cannot be sent (${(error as NodeJS.ErrnoException).code ?? 'invalid'})`;
    }
  }
  return undefined;
}

/** The message recorded (and sent in the 502) for a status line that cannot be passed on: what was wrong and what came. */
export function invalidStatusLineMessage(problem: string, status: number, reason: string | undefined): string {
  return `the upstream's response cannot be passed on: ${problem} (status ${status}, reason "${escapeText(reason ?? '')}")`;
}

/**
 * The message for a response Node's HTTP parser rejected (an `HPE_…` error): llhttp's code and
 * reason, and the status line when the rejected bytes start with one. Only that first line is
 * quoted: header lines may carry credentials, and nothing of them may reach the recording.
 */
export function parserErrorMessage(error: NodeJS.ErrnoException & { reason?: unknown; rawPacket?: unknown }): string {
  const reason = typeof error.reason === 'string' ? error.reason : error.message;
  const raw = Buffer.isBuffer(error.rawPacket) ? error.rawPacket : undefined;
  let began = '';
  if (raw && raw.subarray(0, 5).toString('latin1') === 'HTTP/') {
    let end = raw.indexOf(0x0a);
    if (end < 0 || end > 200) end = Math.min(raw.length, 200);
    began = `; it began "${escapeText(raw.toString('latin1', 0, end).replace(/\r$/, ''))}"`;
  }
  return `the upstream's response is not valid HTTP: ${error.code} (${reason})${began}`;
}

/** True for the errors Node's HTTP parser raises on bytes it cannot read as HTTP. */
export function isParserError(error: NodeJS.ErrnoException): boolean {
  return typeof error.code === 'string' && error.code.startsWith('HPE_');
}

/**
 * Text a peer sent, quotable in one line: control characters, DEL and C1 controls as `\xNN`,
 * quote and backslash escaped, cut at `max` characters.
 */
export function escapeText(text: string, max = 120): string {
  const cut = text.length > max ? text.slice(0, max) : text;
  const escaped = cut.replace(/[\x00-\x1f\x7f-\x9f"\\]/g, (char) => {
    if (char === '"' || char === '\\') return '\\' + char;
    return '\\x' + char.charCodeAt(0).toString(16).padStart(2, '0');
  });
  return cut === text ? escaped : escaped + '…';
}
