import { describe, expect, it } from 'vitest';
import { matchRoute, piRestProtocol } from '../../../src/protocols/pi-rest/index.js';
import { restExchanges } from './rest-exchanges.js';

const exchanges = restExchanges();
const body = (label: string, side: 'request' | 'response' = 'response') => exchanges.find((e) => e.label === label)![side].body;

/** The route table against the daemon's OpenAPI document: test/conformance/pi-rest-route-table.test.ts. */
describe('the hand-written route table', () => {
  it('matches literal segments before placeholders and decodes parameters', () => {
    expect(matchRoute('GET', '/v1/schedule/status')?.route.operationId).toBe('getScheduleStatus');
    expect(matchRoute('GET', '/v1/schedule/nightly')?.route.operationId).toBe('getSchedule');
    expect(matchRoute('get', '/v1/session/agent%2Fa?x=1')).toEqual({ route: expect.objectContaining({ operationId: 'getSession' }), params: { sessionRef: 'agent/a' } });
    expect(matchRoute('GET', '/v1/ticket?method=POST')?.route.operationId).toBe('getTicketByIdempotency');
    expect(matchRoute('POST', '/v1/ticket/t-1/reconcile')?.route.operationId).toBe('reconcileTicket');
    expect(matchRoute('GET', '/v1/session/')).toBeUndefined();
    expect(matchRoute('GET', '/v2/session')).toBeUndefined();
    expect(matchRoute('GET', '/session')).toBeUndefined();
  });
});

describe('piRestProtocol detection', () => {
  it('classifies HTTP on known /v1 routes high, and leaves WebSockets and other paths to others', () => {
    expect(piRestProtocol.classify({ transport: 'http', method: 'POST', path: '/v1/session' })).toBeGreaterThanOrEqual(0.9);
    expect(piRestProtocol.classify({ transport: 'http', path: '/v1/ticket/ticket-1' })).toBeGreaterThanOrEqual(0.8);
    expect(piRestProtocol.classify({ transport: 'ws', path: '/v1/session/agent-a/rpc', subprotocol: 'pi-daemon-rpc.v1' })).toBe(0);
    expect(piRestProtocol.classify({ transport: 'http', path: '/v1/session/agent-a/rpc' })).toBeLessThan(0.5);
    expect(piRestProtocol.classify({ transport: 'http', path: '/v1/unknown' })).toBeLessThan(0.5);
    expect(piRestProtocol.classify({ transport: 'http', path: '/agent/run' })).toBe(0);
    expect(piRestProtocol.classify({ transport: 'sse', path: '/v1/session' })).toBe(0);
    expect(piRestProtocol.classify({ transport: 'http', path: '/v1/session', contentType: 'text/event-stream' })).toBe(0);
  });

  it('sniffs envelopes high and request bodies lower, and guesses the sender', () => {
    const envelope = body('session.create');
    const create = body('session.create', 'request');
    expect(piRestProtocol.sniff(envelope)).toBeGreaterThanOrEqual(0.9);
    expect(piRestProtocol.sniff(create)).toBeGreaterThan(0);
    expect(piRestProtocol.sniff(create)).toBeLessThan(piRestProtocol.sniff(envelope));
    expect(piRestProtocol.sniff(body('blob.reserve', 'request'))).toBeGreaterThan(0);
    expect(piRestProtocol.sniff({ kind: 'command', command: { id: 'c-1', type: 'get_state' } })).toBe(0);
    expect(piRestProtocol.sniff({ jsonrpc: '2.0', id: 1, method: 'initialize' })).toBe(0);
    expect(piRestProtocol.guessSender(envelope)).toBe('server');
    expect(piRestProtocol.guessSender(body('session.get.not-found'))).toBe('server');
    expect(piRestProtocol.guessSender(create)).toBe('client');
  });
});
