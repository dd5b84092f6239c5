import { describe, expect, it } from 'vitest';
import { normalizeHeaders } from '../../src/diff/load-side.js';
import { IdCanonicalizer } from '../../src/diff/id-canonicalizer.js';

/** One side's headers of a session, in order: the answer that issued it, then the requests that name it. */
function side(headers: Array<Record<string, string>>): Array<Record<string, string> | null> {
  const ids = new IdCanonicalizer();
  return headers.map((h) => normalizeHeaders(h, ids));
}

describe('normalizeHeaders', () => {
  it('labels a session header as an id: two runs issued other sessions read alike; a request naming another session than issued still differs', () => {
    const a = side([{ 'Mcp-Session-Id': 'session-1' }, { 'mcp-session-id': 'session-1', accept: 'text/event-stream' }]);
    const b = side([{ 'Mcp-Session-Id': 'session-2' }, { 'mcp-session-id': 'session-2', accept: 'text/event-stream' }]);
    expect(b).toEqual(a);
    expect(a[1]).toEqual({ 'mcp-session-id': 'mcp-session-id#1', accept: 'text/event-stream' });
    const wrong = side([{ 'Mcp-Session-Id': 'session-2' }, { 'mcp-session-id': 'session-3', accept: 'text/event-stream' }]);
    expect(wrong[1]).toEqual({ 'mcp-session-id': 'mcp-session-id#2', accept: 'text/event-stream' });
    expect(wrong).not.toEqual(a);
  });

  it('drops volatile headers and compares other headers by value', () => {
    expect(side([{ Date: 'Tue, 01 Dec 2026 19:01:26 GMT', 'X-Request-Id': 'req_1', 'X-Tenant': 'acme' }])).toEqual([{ 'x-tenant': 'acme' }]);
  });
});
