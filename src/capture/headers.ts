/** RFC 9110 §7.6.1 hop-by-hop headers: they describe one connection and are never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

/**
 * Copies raw headers (name/value pairs, original case and order) minus hop-by-hop headers,
 * including any the Connection header names. `host` is replaced when `host` is given.
 */
export function endToEndHeaders(rawHeaders: string[], options: { host?: string; drop?: readonly string[] } = {}): string[] {
  const dropped = new Set(HOP_BY_HOP);
  for (const name of options.drop ?? []) dropped.add(name);
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i].toLowerCase() === 'connection') {
      for (const token of rawHeaders[i + 1].split(',')) dropped.add(token.trim().toLowerCase());
    }
  }
  const out: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const lower = rawHeaders[i].toLowerCase();
    if (dropped.has(lower)) continue;
    if (lower === 'host' && options.host !== undefined) {
      out.push(rawHeaders[i], options.host);
      continue;
    }
    out.push(rawHeaders[i], rawHeaders[i + 1]);
  }
  return out;
}

/** Raw header pairs as a record for storage: repeated names become arrays; names keep their first spelling. */
export function headerRecord(rawHeaders: string[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const spelling = new Map<string, string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const lower = rawHeaders[i].toLowerCase();
    const name = spelling.get(lower) ?? rawHeaders[i];
    spelling.set(lower, name);
    const existing = out[name];
    out[name] = existing === undefined ? rawHeaders[i + 1] : Array.isArray(existing) ? [...existing, rawHeaders[i + 1]] : [existing, rawHeaders[i + 1]];
  }
  return out;
}

/** Case-insensitive lookup of the first value of a header in a raw header list. */
export function rawHeader(rawHeaders: string[], name: string): string | undefined {
  const lower = name.toLowerCase();
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].toLowerCase() === lower) return rawHeaders[i + 1];
  return undefined;
}
