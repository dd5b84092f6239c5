import { describe, expect, it } from 'vitest';
import { headerValue } from '../../src/core/header-value.js';

describe('headerValue', () => {
  it('finds a header whatever the case of its name or of the name asked for', () => {
    const headers = { 'X-Request-Id': 'r-1', 'idempotency-key': 'k-1' };
    expect(headerValue(headers, 'x-request-id')).toBe('r-1');
    expect(headerValue(headers, 'Idempotency-Key')).toBe('k-1');
    expect(headerValue(headers, 'content-type')).toBeUndefined();
  });

  it('takes the first value of a header sent more than once', () => {
    expect(headerValue({ 'set-cookie': ['a=1', 'b=2'] }, 'Set-Cookie')).toBe('a=1');
  });

  it('passes over a name without a value to a spelling that has one', () => {
    expect(headerValue({ 'x-request-id': undefined, 'X-REQUEST-ID': 'r-2' }, 'x-request-id')).toBe('r-2');
  });

  it('is undefined without headers', () => {
    expect(headerValue(undefined, 'x-request-id')).toBeUndefined();
    expect(headerValue(null, 'x-request-id')).toBeUndefined();
    expect(headerValue({}, 'x-request-id')).toBeUndefined();
  });
});
