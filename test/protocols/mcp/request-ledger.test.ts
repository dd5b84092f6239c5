/**
 * The MCP checker's memory of a session's ids, cancellations and progress tokens is bounded: a
 * session of millions of requests forgets the oldest finished ones (their reuse goes unreported)
 * and never a request or token still in flight.
 */
import { describe, expect, it } from 'vitest';
import { LEDGER_MEMORY, RequestLedger } from '../../../src/protocols/mcp/request-ledger.js';

describe('MCP request ledger', () => {
  it('forgets the oldest answered ids past its memory, keeps the recent ones and every active progress token', () => {
    const ledger = new RequestLedger();
    expect(ledger.request('client', 'long', 'tools/call', 'slow-token')).toEqual([]);
    let found = 0;
    for (let id = 0; id <= LEDGER_MEMORY; id++) {
      found += ledger.request('client', id, 'ping', `t-${id}`).length;
      ledger.answered('server', id);
    }
    expect(found).toBe(0);
    // The oldest answered ids are forgotten; a recent one is still known.
    expect(ledger.request('client', 0, 'ping', undefined)).toEqual([]);
    expect(ledger.request('client', LEDGER_MEMORY, 'ping', undefined).map((f) => f.rule)).toEqual(['mcp-request-id-reused']);
    // The request in flight all along keeps its token.
    expect(ledger.progress('server', 'slow-token', 1)).toEqual([]);
    expect(ledger.progress('server', 'slow-token', 1).map((f) => f.rule)).toEqual(['mcp-progress-not-increasing']);
  });
});
