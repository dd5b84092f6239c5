/** RFC 9110 §7.6.1 hop-by-hop headers: they describe one connection and are never forwarded. */
const HOP_BY_HOP: ReadonlySet<string> = new Set([
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
  // Runs twice per proxied request: the shared set is copied only when something is added to it.
  let dropped = HOP_BY_HOP;
  const add = (name: string) => {
    if (dropped.has(name)) return;
    if (dropped === HOP_BY_HOP) dropped = new Set(HOP_BY_HOP);
    (dropped as Set<string>).add(name);
  };
  for (const name of options.drop ?? []) add(name);
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (name.length === 10 && name.toLowerCase() === 'connection') {
      for (const token of rawHeaders[i + 1].split(',')) add(token.trim().toLowerCase());
    }
  }
  const out: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const lower = rawHeaders[i].toLowerCase();
    if (dropped.has(lower)) continue;
    out.push(rawHeaders[i], lower === 'host' && options.host !== undefined ? options.host : rawHeaders[i + 1]);
  }
  return out;
}

/** Replaces header values that must not be stored (HeaderRedactor). */
export interface HeaderValueFilter {
  /** `lower`: the header name in lower case. */
  storedValue(lower: string, value: string): string;
}

/**
 * Raw header pairs as a record for storage: repeated names become arrays; names keep their first
 * spelling. `filter` replaces values on the way, so redacting needs no copy of the list.
 */
export function headerRecord(rawHeaders: string[], filter?: HeaderValueFilter): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const spelling = new Map<string, string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const lower = rawHeaders[i].toLowerCase();
    const value = filter ? filter.storedValue(lower, rawHeaders[i + 1]) : rawHeaders[i + 1];
    const name = spelling.get(lower);
    if (name === undefined) {
      spelling.set(lower, rawHeaders[i]);
      // A header may be called `__proto__`: it must become a field, not the record's prototype.
      if (rawHeaders[i] === '__proto__') Object.defineProperty(out, '__proto__', { value, enumerable: true, writable: true, configurable: true });
      else out[rawHeaders[i]] = value;
      continue;
    }
    const existing = out[name];
    out[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

/** Case-insensitive lookup of the first value of a header in a raw header list. */
export function rawHeader(rawHeaders: string[], name: string): string | undefined {
  const lower = name.toLowerCase();
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].toLowerCase() === lower) return rawHeaders[i + 1];
  return undefined;
}
