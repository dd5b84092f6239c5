/**
 * The inspector's "Copy as curl": the command is run here by a real shell with `curl` replaced by
 * a script that prints its arguments, so the quoting is checked by what the shell actually passes.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExchangeDetail } from '../../src/ui/api-types.js';
import { curlCommand, shellQuote } from '../../src/ui/web/curl-command.js';
import { tempDir } from '../support/temp-dir.js';

const exchange = (over: Partial<ExchangeDetail>): ExchangeDetail => ({
  id: 1, transport: 'http', protocol: 'pi-rest', protocolEvidence: 'route POST /v1/session', method: 'POST', path: '/v1/session', status: 202, outcome: 'complete', startedMs: 0, endMs: 1, durationMs: 1,
  open: false, messageCount: 2, invalidCount: 0, query: null, url: null, subprotocol: null, requestHeaders: null, responseHeaders: null, errorCode: null,
  errorMessage: null, closeCode: null, closeReason: null, exitCode: null, signal: null, tls: null, tunnel: null, findings: [], ...over,
});

/** The arguments the shell hands to `curl` when it runs `command`. */
function argsOf(command: string): string[] {
  const folder = tempDir('agent-proxy-ui-');
  const dir = folder.dir;
  try {
    const fake = join(dir, 'curl');
    writeFileSync(fake, '#!/bin/sh\nfor a in "$@"; do printf "%s\\0" "$a"; done\n');
    chmodSync(fake, 0o755);
    const out = execFileSync('/bin/sh', ['-c', command], { env: { PATH: `${dir}:/usr/bin:/bin` } }).toString();
    return out.split('\0').slice(0, -1);
  } finally {
    folder.cleanup();
  }
}

describe('copy as curl', () => {
  it('gives method, URL on the target, headers and body, quoted so the shell passes them unchanged', () => {
    const body = `{"note":"it's $HOME \`x\` \\\\ \\"q\\""}`;
    const command = curlCommand(
      exchange({ query: 'wait=true&x=a b', requestHeaders: { 'Content-Type': 'application/json', host: '127.0.0.1:9', 'content-length': '99', 'X-Multi': ['one', "t'wo"] } }),
      'http://127.0.0.1:7463/',
      body,
    );
    expect(argsOf(command)).toEqual([
      '-X', 'POST', 'http://127.0.0.1:7463/v1/session?wait=true&x=a b',
      '-H', 'Content-Type: application/json', '-H', 'X-Multi: one', '-H', "X-Multi: t'wo",
      '--data-raw', body,
    ]);
  });

  it('shows a redacted header as redacted, with a comment that says to fill it in', () => {
    const command = curlCommand(exchange({ transport: 'sse', method: 'GET', path: '/events', requestHeaders: { Authorization: 'Bearer <redacted>' } }), 'http://h:1', undefined);
    expect(command.split('\n')[0]).toBe('# the recording keeps no secrets: replace each <redacted> before running');
    expect(argsOf(command)).toEqual(['-N', 'http://h:1/events', '-H', 'Authorization: Bearer <redacted>']);
  });

  it('quotes only what needs it', () => {
    expect(shellQuote('http://h:1/a')).toBe('http://h:1/a');
    expect(shellQuote("a'b")).toBe(`'a'\\''b'`);
    expect(shellQuote('')).toBe("''");
  });
});
