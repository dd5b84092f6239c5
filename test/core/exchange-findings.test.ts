import { describe, expect, it } from 'vitest';
import { exchangeFindings } from '../../src/core/exchange-findings.js';

const exchange = (errorCode: string | null, errorMessage: string | null, authorizationError?: string) => ({
  errorCode,
  errorMessage,
  tls: authorizationError === undefined ? null : { authorized: false, authorizationError },
});

describe('findings of an exchange itself', () => {
  it('names what failed for E_UPSTREAM_TLS, from the recorded facts or else the code ending the stored message', () => {
    const cases: Array<[ReturnType<typeof exchange>, string]> = [
      [exchange('E_UPSTREAM_TLS', 'check failed: its certificate has expired [CERT_HAS_EXPIRED]'), 'expired certificate'],
      [exchange('E_UPSTREAM_TLS', 'check failed [something]', 'ERR_TLS_CERT_ALTNAME_INVALID'), 'certificate for the wrong host'],
      [exchange('E_UPSTREAM_TLS', 'check failed [UNABLE_TO_GET_ISSUER_CERT_LOCALLY]'), 'certificate from an unknown issuer'],
      [exchange('E_UPSTREAM_TLS', 'TLS handshake with https://x failed: wrong version number [ERR_SSL_WRONG_VERSION_NUMBER]'), 'TLS handshake or other certificate failure'],
      [exchange('E_UPSTREAM_TLS', null), 'TLS handshake or other certificate failure'],
    ];
    for (const [input, failed] of cases) {
      const message = `the upstream's TLS failed: ${failed}${input.errorMessage ? ` (${input.errorMessage})` : ''}`;
      expect(exchangeFindings(input)).toEqual([{ rule: 'upstream-tls-failed', severity: 'error', pointer: '', message }]);
    }
  });

  it('makes an unreachable upstream (refused, no such host, a timeout) an error of its exchange, with the stored message', () => {
    const refused = 'cannot reach http://127.0.0.1:9: ECONNREFUSED';
    expect(exchangeFindings(exchange('E_UPSTREAM_UNREACHABLE', refused))).toEqual([
      { rule: 'upstream-unreachable', severity: 'error', pointer: '', message: `the upstream could not be reached (${refused})` },
    ]);
    expect(exchangeFindings(exchange('E_UPSTREAM_UNREACHABLE', null))).toEqual([{ rule: 'upstream-unreachable', severity: 'error', pointer: '', message: 'the upstream could not be reached' }]);
  });

  it('makes a stdio agent that never came up, and an NDJSON socket of older recordings, the same finding in its own words', () => {
    const cases: Array<[string, string]> = [
      ['E_SPAWN', 'the agent could not be started'],
      ['E_AGENT_EXITED_EARLY', 'the agent exited before it wrote a line'],
      ['E_UPSTREAM', 'the upstream could not be reached'],
    ];
    for (const [code, text] of cases) {
      expect(exchangeFindings(exchange(code, 'why')), code).toEqual([{ rule: 'upstream-unreachable', severity: 'error', pointer: '', message: `${text} (why)` }]);
    }
  });

  it("makes a forward proxy's client that failed its TLS handshake (E_CLIENT_TLS) an error of its exchange, with the stored message naming the host and the fix", () => {
    const stored = 'the client of CONNECT api.example.test does not trust the local CA: …; make it trust the local CA: eval "$(agent-proxy ca --env)", or see docs/forward.md [ERR_SSL_TLSV1_ALERT_UNKNOWN_CA]';
    expect(exchangeFindings(exchange('E_CLIENT_TLS', stored))).toEqual([
      { rule: 'client-tls-failed', severity: 'error', pointer: '', message: `the client's TLS handshake with the forward proxy failed, so nothing it sent was forwarded or recorded: ${stored}` },
    ]);
    expect(exchangeFindings(exchange('E_CLIENT_TLS', null))[0].message).toContain('agent-proxy ca --env');
  });

  it('has none for any other ending', () => {
    // Node's bare codes, as older stdio and NDJSON recordings stored them, mean nothing alone: ENOENT is a missing command or a missing socket.
    for (const code of [null, 'E_UPSTREAM_RESET', 'E_CLIENT_ABORTED', 'ECONNRESET', 'ENOENT', 'constructor']) {
      expect(exchangeFindings(exchange(code, 'x [CERT_HAS_EXPIRED]', 'CERT_HAS_EXPIRED')), String(code)).toEqual([]);
    }
  });
});
