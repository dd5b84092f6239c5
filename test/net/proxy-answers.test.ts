import { describe, expect, it } from 'vitest';
import { ExchangeErrorCode } from '../../src/core/errors.js';
import { isUpstreamFailureAnswer, PROXY_ANSWER_CODES, proxyAnswerCode } from '../../src/net/proxy-answers.js';

describe('proxy answers', () => {
  it('answers each stored code with the JSON error code clients and replay already know', () => {
    expect(proxyAnswerCode(ExchangeErrorCode.E_INVALID_UPGRADE)).toBe('invalid_upgrade');
    expect(proxyAnswerCode(ExchangeErrorCode.E_UPSTREAM_UNREACHABLE)).toBe('upstream_unreachable');
    expect(proxyAnswerCode(ExchangeErrorCode.E_UPSTREAM_INVALID_RESPONSE)).toBe('upstream_invalid_response');
    expect(proxyAnswerCode(ExchangeErrorCode.E_UPSTREAM_HANDSHAKE)).toBe('upstream_handshake_failed');
    expect(proxyAnswerCode(ExchangeErrorCode.E_PROXY_SHUTDOWN)).toBe('proxy_shutting_down');
  });

  it('gives replay no answer of the proxy for a code the upstream or the client caused', () => {
    for (const code of [ExchangeErrorCode.E_UPSTREAM_RESET, ExchangeErrorCode.E_CLIENT_ABORTED, ExchangeErrorCode.E_UPSTREAM, ExchangeErrorCode.E_SPAWN, 'ECONNREFUSED', '']) {
      expect(PROXY_ANSWER_CODES[code], code).toBeUndefined();
    }
  });

  it('names exactly the upstream failures the proxy answered for, by list: no other E_UPSTREAM… code, nor a lookalike', () => {
    const answered = [ExchangeErrorCode.E_UPSTREAM_UNREACHABLE, ExchangeErrorCode.E_UPSTREAM_INVALID_RESPONSE, ExchangeErrorCode.E_UPSTREAM_HANDSHAKE, ExchangeErrorCode.E_UPSTREAM_TLS];
    expect(Object.values(ExchangeErrorCode).filter(isUpstreamFailureAnswer).sort()).toEqual([...answered].sort());
    for (const code of [ExchangeErrorCode.E_UPSTREAM_RESET, ExchangeErrorCode.E_UPSTREAM, ExchangeErrorCode.E_INVALID_UPGRADE, 'E_UPSTREAM_SOMETHING_NEW', null, undefined]) {
      expect(isUpstreamFailureAnswer(code), String(code)).toBe(false);
    }
  });
});
