import { lazyCrypto } from '../core/lazy-crypto.js';
import { UsageError } from '../core/errors.js';

/**
 * `--proxy-auth user:pass`: the Basic credentials a forward proxy's clients must send in
 * `Proxy-Authorization`. Compared as SHA-256 digests with timingSafeEqual, so neither the length
 * nor the first differing byte of a wrong guess shows in the time the answer takes. node:crypto
 * loads with the first credentials: `replay` and `record` load this module for their options.
 */
export class ProxyAuth {
  private readonly expected: Buffer;

  constructor(userPass: string) {
    if (!userPass.includes(':') || userPass.startsWith(':')) throw new UsageError(`--proxy-auth expects user:password`);
    this.expected = digest(`Basic ${Buffer.from(userPass, 'utf8').toString('base64')}`);
  }

  /** True when `header` (the request's Proxy-Authorization, if any) carries the expected credentials. */
  accepts(header: string | undefined): boolean {
    if (header === undefined) return false;
    // The scheme is case-insensitive (RFC 9110 §11.1); the token is compared byte for byte.
    const match = /^basic[ \t]+(\S+)[ \t]*$/i.exec(header);
    return lazyCrypto().timingSafeEqual(digest(match ? `Basic ${match[1]}` : ''), this.expected);
  }
}

/** The head of the 407 a client without valid credentials gets (RFC 9110 §15.5.8). */
export const PROXY_AUTH_REQUIRED_HEADERS = { 'proxy-authenticate': 'Basic realm="agent-proxy", charset="UTF-8"' } as const;

function digest(text: string): Buffer {
  return lazyCrypto().createHash('sha256').update(text, 'utf8').digest();
}
