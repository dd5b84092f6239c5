import type { ExchangeDetail } from '../api-types.js';

/** Headers curl sets itself, or that describe the recorded connection rather than the request. */
const SKIPPED = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect']);

/** A word the shell passes through as it is: single-quoted, a `'` inside closed, escaped and reopened. */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The recorded HTTP request as a curl command: method, URL on the recorded target, headers and
 * body as stored. A recording keeps no secrets, so a redacted header or field reads `<redacted>`
 * here too; a first comment line says so when there is one to fill in.
 */
export function curlCommand(exchange: ExchangeDetail, target: string | null, body: string | undefined): string {
  const base = (target ?? 'http://localhost').replace(/\/+$/, '');
  const path = exchange.path ?? '/';
  const url = base + path + (exchange.query ? `?${exchange.query}` : '');
  const words = ['curl'];
  if (exchange.transport === 'sse') words.push('-N');
  const method = exchange.method ?? 'GET';
  if (method !== 'GET' || body !== undefined) words.push('-X', shellQuote(method));
  words.push(shellQuote(url));
  for (const [name, value] of Object.entries(exchange.requestHeaders ?? {})) {
    if (SKIPPED.has(name.toLowerCase())) continue;
    for (const v of Array.isArray(value) ? value : [value]) words.push('-H', shellQuote(`${name}: ${v}`));
  }
  if (body !== undefined) words.push('--data-raw', shellQuote(body));
  const command = words.join(' ');
  return command.includes('<redacted>') ? `# the recording keeps no secrets: replace each <redacted> before running\n${command}` : command;
}
