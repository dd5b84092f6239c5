import { UsageError } from '../core/errors.js';

/**
 * A host pattern of `--tunnel` and `--intercept`: `*` stands for any run of characters (dots
 * included, so `*.example.com` matches `a.b.example.com` but not `example.com`), everything else
 * matches itself, ignoring case. A pattern names hosts only, never ports.
 */
export class HostGlob {
  private readonly pattern: RegExp;

  constructor(readonly source: string, flag: string) {
    const text = source.trim();
    // `host:443` or a URL is a mistake worth saying; a bracketed IPv6 address has colons of its own.
    if (text === '' || /[\s/]/.test(text) || (!text.startsWith('[') && text.includes(':'))) {
      throw new UsageError(`${flag} '${source}' is not a host pattern: expected a host name with * for any characters (*.example.com)`);
    }
    const host = text.replace(/^\[|\]$/g, '').toLowerCase();
    this.pattern = new RegExp(`^${host.split('*').map(escape).join('.*')}$`);
  }

  matches(host: string): boolean {
    return this.pattern.test(host.replace(/^\[|\]$/g, '').toLowerCase());
  }
}

/** True when any of `globs` matches `host`. */
export function anyMatches(globs: readonly HostGlob[], host: string): boolean {
  return globs.some((glob) => glob.matches(host));
}

function escape(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}
