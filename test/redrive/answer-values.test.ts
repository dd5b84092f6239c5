import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { answerValues } from '../../src/redrive/answer-values.js';

describe('answerValues', () => {
  it('reads a JSON body, decoded as its Content-Encoding says', () => {
    const body = Buffer.from('{"data":{"ticketId":"t-1"}}');
    expect(answerValues(body, { 'content-type': 'application/json' })).toEqual([{ data: { ticketId: 't-1' } }]);
    expect(answerValues(gzipSync(body), { 'content-type': 'application/json', 'content-encoding': 'gzip' })).toEqual([{ data: { ticketId: 't-1' } }]);
  });

  it('reads each event of an event stream (data lines joined, comments and non-JSON left out)', () => {
    const stream = ': keep-alive\n\ndata: {"a":1}\n\nevent: x\r\ndata: {"b":\r\ndata: 2}\r\n\r\ndata: [DONE]\n\n';
    expect(answerValues(Buffer.from(stream), { 'content-type': 'text/event-stream' })).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('reads nothing from a body that is not JSON or does not decode', () => {
    expect(answerValues(Buffer.from('hello'), {})).toEqual([]);
    expect(answerValues(Buffer.from('not gzip'), { 'content-encoding': 'gzip' })).toEqual([]);
  });
});

describe('answerValues, from a hostile agent', () => {
  it('leaves unread an answer nested too deep to walk, instead of overflowing the stack after it', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(answerValues(Buffer.from(deep), { 'content-type': 'application/json' })).toEqual([]);
  });
});
