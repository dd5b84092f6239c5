/** Headers whose values are credentials: they are forwarded as they are and stored as `<redacted>`. */
export const DEFAULT_REDACTED_HEADERS: readonly string[] = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key'];

export const REDACTED = '<redacted>';

export class HeaderRedactor {
  private readonly names: Set<string>;

  constructor(extra: readonly string[] = []) {
    this.names = new Set([...DEFAULT_REDACTED_HEADERS, ...extra.map((n) => n.toLowerCase())]);
  }

  /** A copy of raw header pairs with secret values replaced. The scheme of Authorization is kept (`Bearer <redacted>`). */
  redact(rawHeaders: string[]): string[] {
    const out = rawHeaders.slice();
    for (let i = 0; i < out.length; i += 2) {
      const lower = out[i].toLowerCase();
      if (!this.names.has(lower)) continue;
      const value = out[i + 1];
      const scheme = (lower === 'authorization' || lower === 'proxy-authorization') && /^[A-Za-z][\w-]*\s/.exec(value);
      out[i + 1] = scheme ? `${scheme[0].trim()} ${REDACTED}` : REDACTED;
    }
    return out;
  }
}
