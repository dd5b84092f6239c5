import { describe, expect, it } from 'vitest';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { RecordingWriter, type RecordingWriterOptions } from '../../src/store/recording-writer.js';
import type { Verdict } from '../../src/core/verdict.js';
import { HeaderPairs } from '../../src/net/headers.js';
import { scratch } from '../support/temp-dir.js';
import { useCleanups } from '../support/cleanups.js';
import { meta } from './store-fixtures.js';
import { storedBytes } from '../support/stored-bytes.js';

useCleanups();

const KEY = 'sk-proj-Ab3dEfGhIjKlMnOpQrStUvWxYz0123456789_-abcdEFGH';
const GITHUB = 'ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
const AWS = 'AKIAIOSFODNN7EXAMPLE';
const VALID: Verdict = { status: 'valid', findings: [] };

function record(options: RecordingWriterOptions, write: (writer: RecordingWriter) => void): { reader: RecordingReader; bytes: Buffer } {
  const file = scratch('agent-proxy-credentials-').file('r.db');
  const writer = RecordingWriter.open(file, meta({ target: `pi --api-key ${KEY}` }), options);
  write(writer);
  writer.close();
  const reader = RecordingReader.open(file);
  return { reader, bytes: storedBytes(file) };
}

describe('RecordingWriter: no credential of a well-known format is stored, whoever writes', () => {
  it('a message keeps its verdict and gains a secret-in-traffic warning naming the format and the place, not the value', () => {
    const value = { model: 'gpt', messages: [{ role: 'user', content: `my key is ${KEY}` }] };
    const text = JSON.stringify(value);
    const { reader, bytes } = record({}, (writer) => {
      const id = writer.beginExchange({ transport: 'http', method: 'POST', path: '/v1/chat', tOffsetMs: 0 });
      writer.addMessage({ exchangeId: id, sender: 'client', carrier: 'body', tOffsetMs: 1, raw: Buffer.from(text), json: value, jsonText: text, verdict: VALID });
      writer.endExchange(id, { outcome: 'complete', tOffsetMs: 2 });
    });
    const [m] = reader.messages(1);
    expect(m.raw.toString()).toBe(JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'my key is <redacted>' }] }));
    expect(m.json).toEqual({ model: 'gpt', messages: [{ role: 'user', content: 'my key is <redacted>' }] });
    expect(m.verdict.status).toBe('valid');
    expect(m.verdict.findings).toEqual([
      {
        rule: 'secret-in-traffic',
        severity: 'warning',
        pointer: '/messages/0/content',
        message: 'an OpenAI API key (sk-…) is in this message at /messages/0/content; it was forwarded as sent and stored as <redacted>',
      },
    ]);
    expect(reader.recording().target).toBe('pi --api-key <redacted>');
    expect(reader.totals().findings).toBe(1);
    expect(bytes.includes(KEY)).toBe(false);
  });

  it("an exchange's headers and URL: scrubbed, their findings on its next message, or on its last one when none follows", () => {
    const { reader } = record({}, (writer) => {
      const a = writer.beginExchange({ transport: 'http', method: 'GET', path: '/models', query: `key=x&q=${GITHUB}`, url: `/models?key=x&q=${GITHUB}`, requestHeaders: { 'x-custom': `token ${AWS}` }, tOffsetMs: 0 });
      writer.addMessage({ exchangeId: a, sender: 'server', carrier: 'body', tOffsetMs: 1, raw: Buffer.from('ok'), verdict: VALID });
      writer.endExchange(a, { outcome: 'complete', tOffsetMs: 2 });
      const b = writer.beginExchange({ transport: 'http', method: 'POST', path: '/x', tOffsetMs: 3 });
      writer.addMessage({ exchangeId: b, sender: 'client', carrier: 'body', tOffsetMs: 4, raw: Buffer.from('hi'), verdict: { status: 'unchecked', findings: [], reason: 'not JSON' } });
      writer.updateExchange(b, { status: 200, responseHeaders: { 'x-echo': [KEY, 'plain'] } });
      writer.endExchange(b, { outcome: 'error', errorCode: 'E_UPSTREAM_RESET', errorMessage: `reset after ${GITHUB}`, tOffsetMs: 5 });
    });
    const [a, b] = reader.exchanges();
    expect(a.query).toBe('key=x&q=%3Credacted%3E');
    expect(a.url).toBe('/models?key=x&q=%3Credacted%3E');
    expect(a.requestHeaders).toEqual({ 'x-custom': 'token <redacted>' });
    expect(reader.messages(a.id)[0].verdict.findings.map((f) => f.message)).toEqual([
      'a GitHub token (ghp_…, gho_…, ghu_…, ghs_…, ghr_…) is in the request URL; it was forwarded as sent and stored as <redacted>',
      "an AWS access key id (AKIA…, ASIA…) is in request header 'x-custom'; it was forwarded as sent and stored as <redacted>",
    ]);
    expect(b.responseHeaders).toEqual({ 'x-echo': ['<redacted>', 'plain'] });
    expect(b.errorMessage).toBe('reset after <redacted>');
    const [last] = reader.messages(b.id);
    expect(last.verdict.status).toBe('unchecked');
    expect(last.verdict.findings.map((f) => f.message)).toEqual([
      "an OpenAI API key (sk-…) is in response header 'x-echo'; it was forwarded as sent and stored as <redacted>",
      "a GitHub token (ghp_…, gho_…, ghu_…, ghs_…, ghr_…) is in the exchange's error message; it was forwarded as sent and stored as <redacted>",
    ]);
    expect(reader.totals().findings).toBe(4);
    expect([...reader.findings()].length).toBe(4);
  });

  it('a binary frame keeps its length, masked where its decoded value holds a credential (its length byte is a digit here); texts a judge wrote are scrubbed too', () => {
    const frame = Buffer.concat([Buffer.from([0, 0, 0, 60, 0x0a, 56]), Buffer.from(KEY)]);
    const { reader } = record({}, (writer) => {
      const id = writer.beginExchange({ transport: 'proto', tOffsetMs: 0 });
      const verdict: Verdict = { status: 'invalid', findings: [{ rule: 'x', severity: 'error', pointer: '', message: `bad value '${KEY}'` }] };
      writer.addMessage({ exchangeId: id, sender: 'server', carrier: 'event', channel: 'proto', tOffsetMs: 1, raw: frame, json: { delta: KEY }, verdict });
    });
    const [m] = reader.messages(1);
    expect(m.raw.length).toBe(frame.length);
    expect(m.raw.subarray(0, 6)).toEqual(frame.subarray(0, 6));
    expect(m.raw.toString('latin1')).not.toContain(KEY);
    expect(m.verdict.status).toBe('invalid');
    expect(m.json).toEqual({ delta: '<redacted>' });
    expect(m.verdict.findings.map((f) => f.message)).toEqual(["bad value '<redacted>'", 'an OpenAI API key (sk-…) is in this message at /delta; it was forwarded as sent and stored as <redacted>']);
  });

  it('header texts that repeat the clean ones before them are stored as given, and a credential among them is still found on either side', () => {
    const clean = ['Host', 'api.example', 'Accept', 'application/json', 'x-request-id', 'r1'];
    const withKey = ['Host', 'api.example', 'Accept', 'application/json', 'x-api-key', KEY];
    // Each exchange's headers as capture hands them over: their pairs, a new object with an equal text each time.
    // A text with a credential comes again on the same side (it must be scanned again), and clean ones between.
    const sides = [
      [clean, clean],
      [clean, withKey],
      [withKey, withKey],
      [withKey, clean],
      [clean, clean],
    ];
    const { reader, bytes } = record({}, (writer) => {
      sides.forEach(([request, response], i) => {
        const id = writer.beginExchange({ transport: 'http', method: 'GET', path: '/x', requestHeaders: new HeaderPairs([...request]), tOffsetMs: i * 3 });
        writer.updateExchange(id, { status: 200, responseHeaders: new HeaderPairs([...response]) });
        writer.addMessage({ exchangeId: id, sender: 'server', carrier: 'body', tOffsetMs: i * 3 + 1, raw: Buffer.from('ok'), verdict: VALID });
        writer.endExchange(id, { outcome: 'complete', tOffsetMs: i * 3 + 2 });
      });
    });
    const stored = (pairs: string[]) => {
      const record: Record<string, string> = {};
      for (let i = 0; i < pairs.length; i += 2) record[pairs[i]] = pairs[i + 1] === KEY ? '<redacted>' : pairs[i + 1];
      return record;
    };
    const exchanges = reader.exchanges();
    expect(exchanges.map((e) => [e.requestHeaders, e.responseHeaders])).toEqual(sides.map(([request, response]) => [stored(request), stored(response)]));
    const found = exchanges.map((e) => reader.messages(e.id)[0].verdict.findings.map((f) => f.message));
    const inRequest = "an OpenAI API key (sk-…) is in request header 'x-api-key'; it was forwarded as sent and stored as <redacted>";
    const inResponse = "an OpenAI API key (sk-…) is in response header 'x-api-key'; it was forwarded as sent and stored as <redacted>";
    expect(found).toEqual([[], [inResponse], [inRequest, inResponse], [inRequest], []]);
    expect(bytes.includes(KEY)).toBe(false);
  });

  it('a reason or finding text that comes again (every unchecked message of an unclaimed exchange has the same one) is stored scrubbed each time', () => {
    const secretReason = `judged by a schema named after ${GITHUB}`;
    const plainReason = 'no known protocol recognised this exchange';
    // Repeated, alternating, and a finding's sentence between two reasons.
    const texts = [secretReason, secretReason, plainReason, plainReason, secretReason, plainReason];
    const { reader, bytes } = record({}, (writer) => {
      const id = writer.beginExchange({ transport: 'http', method: 'GET', path: '/x', tOffsetMs: 0 });
      texts.forEach((reason, i) => {
        const findings = i === 4 ? [{ rule: 'x', severity: 'warning' as const, pointer: '', message: `saw ${GITHUB}` }] : [];
        writer.addMessage({ exchangeId: id, sender: 'server', carrier: 'event', tOffsetMs: i + 1, raw: Buffer.from(`event ${i}`), verdict: { status: 'unchecked', findings, reason } });
      });
      writer.endExchange(id, { outcome: 'complete', tOffsetMs: 9 });
    });
    const stored = reader.messages(1);
    expect(stored.map((m) => m.verdict.reason)).toEqual(texts.map((t) => (t === secretReason ? 'judged by a schema named after <redacted>' : plainReason)));
    expect(stored[4].verdict.findings.map((f) => f.message)).toEqual(['saw <redacted>']);
    expect(bytes.includes(GITHUB)).toBe(false);
  });

  it('keepSecrets keeps what its patterns match; `all` stores a copy as it is, with no finding', () => {
    const both = `${KEY} ${GITHUB}`;
    const write = (writer: RecordingWriter) => {
      const id = writer.beginExchange({ transport: 'stdio', url: `agent ${GITHUB}`, tOffsetMs: 0 });
      writer.addMessage({ exchangeId: id, sender: 'server', carrier: 'line', channel: 'stderr', tOffsetMs: 1, raw: Buffer.from(both), verdict: VALID });
    };
    const kept = record({ keepSecrets: [/^sk-proj-/] }, write).reader;
    expect(kept.messages(1)[0].raw.toString()).toBe(`${KEY} <redacted>`);
    expect(kept.exchanges()[0].url).toBe('agent <redacted>');
    const copy = record({ keepSecrets: 'all' }, write).reader;
    expect(copy.messages(1)[0].raw.toString()).toBe(both);
    expect(copy.messages(1)[0].verdict.findings).toEqual([]);
  });
});
