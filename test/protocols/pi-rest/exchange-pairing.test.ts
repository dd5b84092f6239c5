import { describe, expect, it } from 'vitest';
import type { HttpContext } from '../../../src/core/message.js';
import { ExchangePairing } from '../../../src/protocols/pi-rest/exchange-pairing.js';

const route = { method: 'POST', path: '/v1/ticket/t1/reconcile' };

describe('ExchangePairing', () => {
  it('pairs a response with the request that carried the very same headers object (a recorded exchange)', () => {
    const pairing = new ExchangePairing();
    const headers = { 'x-request-id': 'r1', 'idempotency-key': 'k1' };
    pairing.open({ ...route, requestHeaders: headers }, { bodyRequestId: 'first' });
    expect(pairing.take({ ...route, status: 200, requestHeaders: headers })).toEqual({ bodyRequestId: 'first' });
    expect(pairing.take({ ...route, status: 200, requestHeaders: headers })).toBeUndefined();
  });

  it('pairs equal headers given as different objects, whatever their order and the case of their names (a capture file)', () => {
    const pairing = new ExchangePairing();
    pairing.open({ ...route, requestHeaders: { 'X-Request-Id': 'r1', Accept: ['a', 'b'] } }, { bodyRequestId: 'first' });
    expect(pairing.take({ ...route, status: 200, requestHeaders: { accept: 'a, b', 'x-request-id': 'r1' } })).toEqual({ bodyRequestId: 'first' });
  });

  it('skips a request whose response was never captured: headers that differ do not pair', () => {
    const pairing = new ExchangePairing();
    pairing.open({ ...route, requestHeaders: { 'x-request-id': 'lost' } }, { bodyRequestId: 'lost' });
    pairing.open({ ...route, requestHeaders: { 'x-request-id': 'r2' } }, { bodyRequestId: 'second' });
    const response: HttpContext = { ...route, status: 200, requestHeaders: { 'x-request-id': 'r2' } };
    expect(pairing.take(response)).toEqual({ bodyRequestId: 'second' });
    expect(pairing.take({ ...route, status: 200, requestHeaders: { 'x-request-id': 'other' } })).toBeUndefined();
    expect(pairing.take({ ...route, status: 200, requestHeaders: { 'x-request-id': 'lost' } })).toEqual({ bodyRequestId: 'lost' });
  });

  it('without headers on either side, takes the oldest request of the same route, and never one of another route', () => {
    const pairing = new ExchangePairing();
    pairing.open(route, { bodyRequestId: 'a' });
    pairing.open({ ...route, requestHeaders: { 'x-request-id': 'r' } }, { bodyRequestId: 'b' });
    expect(pairing.take({ ...route, path: '/v1/ticket/t2/reconcile', status: 200 })).toBeUndefined();
    expect(pairing.take({ ...route, status: 200 })).toEqual({ bodyRequestId: 'a' });
    // A request recorded without headers pairs with a response that has some.
    pairing.open(route, { bodyRequestId: 'c' });
    expect(pairing.take({ ...route, status: 200, requestHeaders: { 'x-request-id': 'z' } })).toEqual({ bodyRequestId: 'c' });
  });
});
