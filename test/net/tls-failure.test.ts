/**
 * What an upstream connection error says about TLS: each certificate code Node gives names its
 * check, a handshake failure keeps OpenSSL's reason, anything else is no TLS failure; and the 502's
 * `tls` field is rebuilt from the stored message exactly as it was sent.
 */
import { describe, expect, it } from 'vitest';
import { tlsAnswerFields, tlsAnswerFieldsOfMessage, tlsFailureOf } from '../../src/net/tls-failure.js';

const TARGET = 'https://agents.example:8443';

function failure(code: string, message = 'x', extra: Record<string, unknown> = {}) {
  return tlsFailureOf(Object.assign(new Error(message), { code }, extra), TARGET);
}

describe('tlsFailureOf', () => {
  it.each([
    ['CERT_HAS_EXPIRED', 'expired', 'its certificate has expired'],
    ['CERT_NOT_YET_VALID', 'not-yet-valid', 'its certificate is not valid yet'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'untrusted', "its certificate's issuer is unknown; add its CA with --ca <pem>"],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'untrusted', "its certificate's issuer is unknown"],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'untrusted', 'its certificate chain ends in an untrusted self-signed CA'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'untrusted', 'its certificate is self-signed and not trusted'],
    ['CERT_REVOKED', 'certificate', 'its certificate has been revoked'],
  ])('%s is the %s check', (code, check, text) => {
    const found = failure(code);
    expect(found).toMatchObject({ check, nodeCode: code });
    expect(found!.message.startsWith(`TLS certificate check of ${TARGET} failed: ${text}`)).toBe(true);
    expect(found!.message.endsWith(`[${code}]`)).toBe(true);
  });

  it("a wrong host name quotes Node's reason, which lists the certificate's names", () => {
    const found = failure('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames", { reason: "Host: agents.example. is not in the cert's altnames: DNS:other.test" });
    expect(found).toEqual({
      check: 'host-name',
      nodeCode: 'ERR_TLS_CERT_ALTNAME_INVALID',
      message: `TLS certificate check of ${TARGET} failed: its certificate is for another host name (Host: agents.example. is not in the cert's altnames: DNS:other.test) [ERR_TLS_CERT_ALTNAME_INVALID]`,
    });
  });

  it("a handshake refused by OpenSSL keeps its reason, with a hint for a server that does not speak TLS", () => {
    const message = 'write EPROTO 80BCE3D1F47F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/openssl/ssl/record/ssl3_record.c:350:\n';
    expect(failure('EPROTO', message)).toEqual({
      check: 'handshake',
      nodeCode: 'EPROTO',
      message: `TLS handshake with ${TARGET} failed: wrong version number (does it speak TLS on that port? try http://) [EPROTO]`,
    });
    expect(failure('ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION', 'alert')).toMatchObject({ check: 'handshake', message: `TLS handshake with ${TARGET} failed: alert [ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION]` });
  });

  it('a connection that fails for another reason is no TLS failure (it stays "unreachable")', () => {
    expect(failure('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:8443')).toBeUndefined();
    expect(failure('ECONNRESET', 'socket hang up')).toBeUndefined();
    expect(failure('EPROTO', 'some other protocol error')).toBeUndefined();
    expect(tlsFailureOf(new Error('no code'), TARGET)).toBeUndefined();
  });
});

describe("the 502's tls field", () => {
  it('is rebuilt from the stored message as it was sent', () => {
    for (const [code, message] of [
      ['CERT_HAS_EXPIRED', ''],
      ['ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"],
      ['DEPTH_ZERO_SELF_SIGNED_CERT', ''],
      ['EPROTO', 'x:SSL routines:ssl3_get_record:wrong version number:../ssl3_record.c:350:'],
    ]) {
      const found = failure(code, message)!;
      expect(tlsAnswerFieldsOfMessage(found.message)).toEqual(tlsAnswerFields(found));
    }
  });

  it('is left out when the message names no code', () => {
    expect(tlsAnswerFieldsOfMessage('recorded by an older version')).toEqual({});
    expect(tlsAnswerFieldsOfMessage(null)).toEqual({});
  });
});
