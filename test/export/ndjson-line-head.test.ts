import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../src/core/verdict.js';
import { LineHeads, type HeadPart } from '../../src/export/ndjson-line-head.js';
import { derivedSchemaRefOfText } from '../../src/store/ndjson-derived-ref.js';
import type { MessageTextRow } from '../../src/store/store-types.js';

const CHUNK = '{"id":"c1","object":"chat.completion.chunk","choices":[]}';
const CHUNK_WITH_ERROR = '{"id":"c1","object":"chat.completion.chunk","error":{"message":"x"}}';
const CHUNK_REF = derivedSchemaRefOfText('openai', 'server', 'event', CHUNK)!;

function row(jsonText: string, verdict: Verdict): MessageTextRow {
  return { id: 1, exchangeId: 1, seq: 1, sender: 'server', carrier: 'event', channel: null, tOffsetMs: 1, raw: null, rawTruncatedFrom: null, json: undefined, verdict, jsonText, textBefore: 'data: ', textAfter: '\n\n' };
}

/** A part's text, checked against its bytes when it has them (a kept part's, which the byte chunks copy as they are). */
function text(part: HeadPart): string {
  if (part.bytes !== undefined) expect(Buffer.from(part.bytes).toString('utf8')).toBe(part.text);
  return part.text;
}

describe("a message line's shared parts", () => {
  it("keeps a shared verdict's text by the ref derived for each message, not by the verdict alone", () => {
    expect(CHUNK_REF).toBeDefined();
    // One frozen verdict for every plain row of this status and ref, as RecordingReader shares it.
    const shared = Object.freeze({ status: 'valid', schemaRef: CHUNK_REF, findings: Object.freeze([]) }) as unknown as Verdict;
    const heads = new LineHeads();
    for (let i = 0; i < 3; i++) {
      expect(text(heads.verdict(row(CHUNK, shared), 'openai'))).toBe('');
      // The same verdict, but this message's derived ref is none: its ref is written.
      expect(text(heads.verdict(row(CHUNK_WITH_ERROR, shared), 'openai'))).toBe(`,"verdict":{"status":"valid","schemaRef":${JSON.stringify(CHUNK_REF)}}`);
      // Another exchange's protocol derives nothing either.
      expect(text(heads.verdict(row(CHUNK, shared), null))).toBe(`,"verdict":{"status":"valid","schemaRef":${JSON.stringify(CHUNK_REF)}}`);
    }
  });

  it('gives each exchange, route and member its own text, also past the parts it keeps', () => {
    const heads = new LineHeads();
    // More exchanges than it keeps parts for (4,096), each asked twice, interleaved with routes and members.
    for (let round = 0; round < 2; round++) {
      for (let id = 1; id <= 5000; id++) {
        expect(text(heads.exchange(id))).toBe(`{"type":"message","exchange":${id},"seq":`);
        const channel = id % 3 === 0 ? null : `c${id % 7}`;
        const sender = id % 2 === 0 ? 'client' : 'server';
        expect(text(heads.route(sender, 'frame', channel))).toBe(`,"sender":"${sender}","carrier":"frame"${channel === null ? '' : `,"channel":"${channel}"`},"tOffsetMs":`);
        expect(text(heads.member(',"rawBefore":', `event: e${id % 5}\ndata: `))).toBe(`,"rawBefore":"event: e${id % 5}\\ndata: "`);
      }
    }
    // A long member is written each time, and escaped as JSON.stringify does.
    const long = `${'x'.repeat(100)}"\n`;
    expect(text(heads.member(',"rawAfter":', long))).toBe(`,"rawAfter":${JSON.stringify(long)}`);
  });
});
