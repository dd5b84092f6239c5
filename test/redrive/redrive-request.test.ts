import { describe, expect, it } from 'vitest';
import { redriveRequestOf, unsendableReason } from '../../src/redrive/redrive-request.js';
import { Substitution } from '../../src/match/correlation.js';
import type { ScriptExchange } from '../../src/replay/replay-script.js';

function exchange(over: Partial<ScriptExchange> = {}, body = '{"sessionId":"sess-recorded","n":1}'): ScriptExchange {
  return {
    id: 1, transport: 'http', protocol: undefined, method: 'POST', path: '/v1/session/sess-recorded/prompt', query: 'after=sess-recorded&x=1', status: 200, subprotocol: null,
    requestHeaders: { host: '127.0.0.1:1', connection: 'keep-alive', 'content-length': '35', authorization: 'Bearer <redacted>', 'x-session': 'sess-recorded', accept: ['a', 'b'] },
    responseHeaders: null, startedMs: 0, endedMs: 1, outcome: 'complete', errorCode: null, errorMessage: null, closeCode: null, closeReason: null,
    messages: [{ seq: 1, sender: 'client', carrier: 'body', channel: null, raw: Buffer.from(body), json: JSON.parse(body), tOffsetMs: 0, truncated: false }],
    ...over,
  } as ScriptExchange;
}

describe('redriveRequestOf', () => {
  it('sends the recorded request minus hop-by-hop and connection headers; a redacted header is left out and named', () => {
    const request = redriveRequestOf(exchange());
    expect(request).toMatchObject({ method: 'POST', url: '/v1/session/sess-recorded/prompt?after=sess-recorded&x=1', missing: ['authorization'] });
    expect(request.headers).toEqual(['x-session', 'sess-recorded', 'accept', 'a', 'accept', 'b', 'content-length', '35']);
    expect(request.body.toString()).toBe('{"sessionId":"sess-recorded","n":1}');
  });

  it('puts a supplied header in place of the recorded one, and adds none where the request had none', () => {
    expect(redriveRequestOf(exchange(), [{ name: 'Authorization', value: 'Bearer now' }]).headers).toContain('Bearer now');
    expect(redriveRequestOf(exchange({ requestHeaders: {} }), [{ name: 'Authorization', value: 'Bearer now' }]).headers).not.toContain('Bearer now');
  });

  it('carries minted ids into the path, the query, header values and the body, and recomputes the length', () => {
    const ids = new Substitution([{ field: '/sessionId', key: 'sessionId', recorded: 'sess-recorded', live: 'sess-new-longer' }]);
    const request = redriveRequestOf(exchange(), [], ids);
    expect(request.url).toBe('/v1/session/sess-new-longer/prompt?after=sess-new-longer&x=1');
    expect(request.headers).toEqual(['x-session', 'sess-new-longer', 'accept', 'a', 'accept', 'b', 'content-length', '37']);
    expect(request.body.toString()).toBe('{"sessionId":"sess-new-longer","n":1}');
  });

  it('a GET recorded without a body or length is sent without a length', () => {
    expect(redriveRequestOf(exchange({ method: 'GET', requestHeaders: {}, messages: [] })).headers).toEqual([]);
  });

  it('refuses a request whose body was stored truncated', () => {
    const cut = exchange();
    cut.messages[0]!.truncated = true;
    expect(unsendableReason(cut)).toMatch(/truncated/);
    expect(unsendableReason(exchange())).toBeUndefined();
  });
});
