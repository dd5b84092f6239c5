/** A case is named by method and route, or as a conversation, with the exchange's id to keep two calls apart. */
import { describe, expect, it } from 'vitest';
import { caseClass, caseName, route } from '../../src/report/case-name.js';

describe('caseName', () => {
  it.each([
    [{ id: 3, transport: 'sse', protocol: 'agui', method: 'POST', path: '/agent' }, 'POST /agent (#3)', 'agui'],
    [{ id: 4, transport: 'ws', protocol: 'pi-daemon-rpc', method: 'GET', path: '/v1/session/pd-1f2e3d4c5b6a7980/rpc' }, 'WebSocket /v1/session/{id}/rpc (#4)', 'pi-daemon-rpc'],
    [{ id: 1, transport: 'stdio', protocol: 'pi-rpc', method: null, path: null }, 'stdio conversation (#1)', 'pi-rpc'],
    [{ id: 2, transport: 'ndjson', protocol: null, method: null, path: null }, 'NDJSON connection (#2)', 'ndjson'],
    [{ id: 5, transport: 'http', protocol: 'pi-rest', method: 'GET', path: '/v1/ticket/ticket-fBaWwULIkq8AYJEoJDRQO33yLUUnxABk0iAD8c6iy4s?x=1' }, 'GET /v1/ticket/{id} (#5)', 'pi-rest'],
  ] as const)('%j is %s', (exchange, name, classname) => {
    expect(caseName(exchange)).toBe(name);
    expect(caseClass(exchange)).toBe(classname);
  });

  it('names another recording the id is of', () => {
    expect(caseName({ id: 2, transport: 'http', protocol: null, method: 'GET', path: '/health' }, 'the baseline')).toBe('GET /health (#2 of the baseline)');
  });

  it('keeps named segments and replaces minted ones', () => {
    expect(route('/v1/session/agent-a/rpc')).toBe('/v1/session/agent-a/rpc');
    expect(route('/runs/123/events/550e8400-e29b-41d4-a716-446655440000')).toBe('/runs/{id}/events/{id}');
    expect(route('/bad/%E0%A4%A')).toBe('/bad/%E0%A4%A');
    expect(route(null)).toBe('/');
  });
});
