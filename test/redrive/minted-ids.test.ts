import { describe, expect, it } from 'vitest';
import { learnEndpointIds, learnMintedHeaderIds, learnMintedIds } from '../../src/redrive/minted-ids.js';

describe('learnMintedIds', () => {
  it('pairs the strings under id keys that the new answer has in place of the recorded ones, at the same places', () => {
    const recorded = [{ data: { ticketId: 'ticket-old-1', sessionId: 'session-1', items: [{ id: 'item-old-a' }], name: 'old name' } }];
    const live = [{ data: { ticketId: 'ticket-new-1', sessionId: 'session-1', items: [{ id: 'item-new-a' }], name: 'new name' } }];
    expect(learnMintedIds(recorded, live)).toEqual([
      { field: '/data/ticketId', key: 'ticketId', recorded: 'ticket-old-1', live: 'ticket-new-1' },
      { field: '/data/items/0/id', key: 'id', recorded: 'item-old-a', live: 'item-new-a' },
    ]);
  });

  it('learns nothing from short ids, numbers or values of other keys, and pairs stream events by position', () => {
    expect(learnMintedIds([{ id: 'm1', runId: 7, text: 'abcdefgh' }], [{ id: 'm2', runId: 8, text: 'zyxwvuts' }])).toEqual([]);
    expect(learnMintedIds([{ a: 1 }, { response_id: 'resp_recorded' }], [{ a: 1 }, { response_id: 'resp_live_1' }])).toEqual([{ field: '/response_id', key: 'response_id', recorded: 'resp_recorded', live: 'resp_live_1' }]);
  });

  it('learns nothing from values of different kinds: an event where the recording had a response is another message', () => {
    expect(learnMintedIds([{ kind: 'response', requestId: 'request-old' }], [{ kind: 'event', requestId: 'request-new' }])).toEqual([]);
    expect(learnMintedIds([{ data: { type: 'a', id: 'id-old-1' } }], [{ data: { type: 'b', id: 'id-new-1' } }])).toEqual([]);
  });

  it('pairs the id headers a new answer has in place of the recorded ones (MCP\'s Mcp-Session-Id), whatever their case; not other headers', () => {
    const recorded = { 'mcp-session-id': 'session-old-1', 'content-type': 'application/json', 'x-trace-id': 'abc' };
    const live = { 'Mcp-Session-Id': 'session-new-1', 'content-type': 'text/event-stream', 'x-trace-id': 'xyz' };
    expect(learnMintedHeaderIds(recorded, live)).toEqual([{ field: 'header:mcp-session-id', key: undefined, recorded: 'session-old-1', live: 'session-new-1' }]);
    expect(learnMintedHeaderIds(recorded, { 'mcp-session-id': 'session-old-1' })).toEqual([]);
    expect(learnMintedHeaderIds(null, live)).toEqual([]);
  });

  it("pairs the query values of the URL a legacy MCP stream's endpoint event names that the new server minted afresh; not short ones, nor parameters the new URL lacks", () => {
    expect(learnEndpointIds('/message?sessionId=session-old-1&v=1', '/message?sessionId=session-new-1&v=2')).toEqual([{ field: 'query:sessionId', key: undefined, recorded: 'session-old-1', live: 'session-new-1' }]);
    expect(learnEndpointIds('/message?sessionId=session-old-1', 'http://127.0.0.1:9/messages?session=session-new-1')).toEqual([]);
    expect(learnEndpointIds('/message?sessionId=session-old-1', '/message?sessionId=session-old-1')).toEqual([]);
  });
});
