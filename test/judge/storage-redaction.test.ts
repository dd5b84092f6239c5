/**
 * The pieces that keep secrets out of what is stored: query parameters, JSON fields in parsed values
 * and raw bytes (bodies, lines, SSE blocks, truncated starts), and the markers replay matches.
 */
import { describe, expect, it } from 'vitest';
import { EventType } from '@ag-ui/core';
import { FieldRedactor } from '../../src/judge/field-redaction.js';
import { stringifyJson } from '../../src/core/json-text.js';
import { decodeAguiProto, loadAguiProtoDecoder } from '../../src/protocols/agui/proto-binding.js';
import { QueryRedactor } from '../../src/judge/query-redaction.js';
import { HeaderRedactor } from '../../src/judge/header-redaction.js';
import { FieldSpecs } from '../../src/core/field-specs.js';
import { maskQuery, redactedQueryNames, RedactionMask } from '../../src/match/redacted-values.js';

const SECRET = 'sk-live-7f3a9c1e5b2d';

/** A small deterministic PRNG (mulberry32), so a failure repeats. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('QueryRedactor', () => {
  const redactor = new QueryRedactor(['X-Custom']);

  it('replaces only the value of a secret parameter, keeping every other byte, the name and its place', () => {
    expect(redactor.redact(`a=1&token=${SECRET}&b=%20x`)).toBe('a=1&token=%3Credacted%3E&b=%20x');
    expect(redactor.redact(`Access_Token=${SECRET}`)).toBe('Access_Token=%3Credacted%3E');
    expect(redactor.redact(`apiKey=${SECRET}&API-KEY=${SECRET}&x_custom=${SECRET}`)).toBe('apiKey=%3Credacted%3E&API-KEY=%3Credacted%3E&x_custom=%3Credacted%3E');
    // Names are read as a server reads them: percent-decoded.
    expect(redactor.redact(`acc%65ss_token=${SECRET}`)).toBe('acc%65ss_token=%3Credacted%3E');
    expect(redactor.redactUrl(`/stream?sig=${SECRET}#frag`)).toBe('/stream?sig=%3Credacted%3E');
  });

  it('returns the input itself when nothing is secret (no copy on the usual request)', () => {
    const query = 'a=1&b=2&tokenizer=x&token&token=';
    expect(redactor.redact(query)).toBe(query);
    expect(redactor.redactUrl('/plain')).toBe('/plain');
  });
});

describe('HeaderRedactor', () => {
  it('redacts the longer default list whatever the case', () => {
    const redactor = new HeaderRedactor();
    const raw = ['X-Auth-Token', SECRET, 'api-key', SECRET, 'X-Goog-Api-Key', SECRET, 'x-amz-security-token', SECRET, 'Private-Token', SECRET, 'x-request-id', 'kept'];
    expect(redactor.record(raw)).toEqual({
      'X-Auth-Token': '<redacted>',
      'api-key': '<redacted>',
      'X-Goog-Api-Key': '<redacted>',
      'x-amz-security-token': '<redacted>',
      'Private-Token': '<redacted>',
      'x-request-id': 'kept',
    });
  });

  it("redacts an MCP tool argument mirrored into a header (Mcp-Param-*) when its name is a secret's", () => {
    const raw = ['Mcp-Param-Api-Key', SECRET, 'mcp-param-sessiontoken', SECRET, 'Mcp-Param-Region', 'us-west1', 'Mcp-Param-', 'kept'];
    expect(new HeaderRedactor().record(raw)).toEqual({ 'Mcp-Param-Api-Key': '<redacted>', 'mcp-param-sessiontoken': '<redacted>', 'Mcp-Param-Region': 'us-west1', 'Mcp-Param-': 'kept' });
  });

  it('keeps URL-valued headers, with their secret query parameters redacted (--redact-query too)', () => {
    const redactor = new HeaderRedactor([], ['state']);
    const raw = ['Location', `/cb?code=1&token=${SECRET}`, 'REFERER', `http://x/?state=${SECRET}`, 'Content-Location', '/plain', 'Locatiom', `?token=${SECRET}`];
    expect(redactor.redact(raw)).toEqual(['Location', '/cb?code=1&token=%3Credacted%3E', 'REFERER', 'http://x/?state=%3Credacted%3E', 'Content-Location', '/plain', 'Locatiom', `?token=${SECRET}`]);
  });
});

describe('FieldRedactor', () => {
  const redactor = new FieldRedactor(['/spec/token', 'myField']);

  function stored(text: string, raw = Buffer.from(text)) {
    return redactor.redact(JSON.parse(text), raw, text);
  }

  it('replaces secret values in the raw bytes in place, keeping spacing, escapes and number spelling', () => {
    const text = `{ "apiKey" : "${SECRET}",\n  "n": 1.50, "u": "caf\\u00e9", "nested": {"Password": 12345, "keep": true} }`;
    const result = stored(text)!;
    expect(result.raw.toString()).toBe(`{ "apiKey" : "<redacted>",\n  "n": 1.50, "u": "caf\\u00e9", "nested": {"Password": "<redacted>", "keep": true} }`);
    expect(result.value).toEqual({ apiKey: '<redacted>', n: 1.5, u: 'café', nested: { Password: '<redacted>', keep: true } });
  });

  it('matches pointers (with *) and extra key names at any depth; objects and arrays go whole', () => {
    const text = JSON.stringify({ spec: { token: SECRET, other: { token: 'kept' } }, list: [{ my_field: { deep: SECRET } }, { myField: [SECRET] }] });
    const result = stored(text)!;
    expect(result.value).toEqual({ spec: { token: '<redacted>', other: { token: 'kept' } }, list: [{ my_field: '<redacted>' }, { myField: '<redacted>' }] });
    expect(result.raw.includes(SECRET)).toBe(false);
  });

  it('redacts ACP MCP server env and header values by default', () => {
    const text = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/w', mcpServers: [{ name: 'm', command: 'x', args: [], env: [{ name: 'API', value: SECRET }], headers: [{ name: 'Authorization', value: `Bearer ${SECRET}` }] }] } });
    const result = stored(text)!;
    expect(result.raw.includes(SECRET)).toBe(false);
    expect(result.value).toMatchObject({ params: { mcpServers: [{ env: [{ name: 'API', value: '<redacted>' }], headers: [{ name: 'Authorization', value: '<redacted>' }] }] } });
  });

  it("keeps a JSON Schema's property schemas named like secrets (a tool's inputSchema), and still redacts values there", () => {
    const inputSchema = { type: 'object', properties: { apiKey: { type: 'string' }, password: { type: 'string', minLength: 8 } }, $defs: { secret: { type: 'string' } } };
    const text = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'login', inputSchema }] } });
    expect(stored(text)).toBeUndefined();
    const data = JSON.stringify({ properties: { password: SECRET, apiKey: { type: 'string' } }, apiKey: { value: SECRET } });
    const result = stored(data)!;
    expect(result.value).toEqual({ properties: { password: '<redacted>', apiKey: { type: 'string' } }, apiKey: '<redacted>' });
    expect(result.raw.includes(SECRET)).toBe(false);
  });

  it('leaves null, booleans, stored redactions and messages without secrets alone', () => {
    expect(stored(JSON.stringify({ secret: true, password: null, apiKey: '<redacted>' }))).toBeUndefined();
    expect(stored(JSON.stringify({ secret: `hmac-sha256:${'a'.repeat(64)}` }))).toBeUndefined();
    expect(stored(JSON.stringify({ type: 'TEXT_MESSAGE_CONTENT', delta: 'password: hunter2' }))).toBeUndefined();
  });

  it('redacts every copy of a duplicated key, whichever value the parse kept', () => {
    for (const last of ['null', 'true', '"<redacted>"']) {
      const text = `{"apiKey":"${SECRET}","n":1,"apiKey":${last}}`;
      const result = stored(text)!;
      expect(result.raw.toString()).toBe(`{"apiKey":"<redacted>","n":1,"apiKey":${last}}`);
      expect(result.raw.includes(SECRET)).toBe(false);
    }
  });

  it('keeps a line terminator and an SSE block framing as they travelled', () => {
    const line = `{"apiKey":"${SECRET}"}`;
    expect(redactor.redact(JSON.parse(line), Buffer.from(line + '\r\n'), line)!.raw.toString()).toBe('{"apiKey":"<redacted>"}\r\n');
    const data = `{"a":1,\n"password":\n"${SECRET}"}`;
    const block = `event: x\r\ndata:{"a":1,\r\ndata: "password":\r\n: comment\r\ndata: "${SECRET}"}\r\n\r\n`;
    const result = redactor.redact(JSON.parse(data), Buffer.from(block), data)!;
    expect(result.raw.toString()).toBe(`event: x\r\ndata:{"a":1,\r\ndata: "password":\r\n: comment\r\ndata: "<redacted>"}\r\n\r\n`);
    // A value spread over data lines is cut out whole, lines between included; the block stays valid.
    const spread = `{"secret": {\n"x": "${SECRET}"}}`;
    const spreadBlock = `data: {"secret": {\ndata: "x": "${SECRET}"}}\n\n`;
    expect(redactor.redact(JSON.parse(spread), Buffer.from(spreadBlock), spread)!.raw.toString()).toBe('data: {"secret": "<redacted>"}\n\n');
  });

  it('copies multi-byte text around the secret byte for byte', () => {
    const text = `{"note":"日本語 ✓","password":"${SECRET}","after":"ü"}`;
    expect(stored(text)!.raw.toString()).toBe('{"note":"日本語 ✓","password":"<redacted>","after":"ü"}');
  });

  it('finds secrets in the kept start of a truncated message, up to its end', () => {
    const cut = Buffer.from(`data: {"x":[1,2],"apiKey":"${SECRET}","rest":"abc`).subarray(0, 40);
    const redacted = redactor.redactTruncated(cut)!;
    expect(redacted.toString()).toBe('data: {"x":[1,2],"apiKey":"<redacted>"');
    expect(redactor.redactTruncated(Buffer.from('{"n":1'))).toBeUndefined();
  });

  it('agrees with a plain walk of the parsed value on random JSON in random spacing', () => {
    const random = seeded(7);
    const keys = ['a', 'b c', 'apiKey', 'API_KEY', 'pass"word', 'password', 'myField', 'x\\y', 'é', 'spec', 'token'];
    const scalar = (): unknown => [() => null, () => true, () => random() * 1e6 - 5e5, () => 'text, with: [brackets] {and} "quotes" \\ ✓', () => '', () => SECRET][Math.floor(random() * 6)]();
    const value = (depth: number): unknown => {
      const kind = depth > 4 ? 0 : Math.floor(random() * 3);
      if (kind === 0) return scalar();
      if (kind === 1) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(random() * 5) }, () => [keys[Math.floor(random() * keys.length)], value(depth + 1)]));
    };
    const reference = (v: unknown, key?: string): unknown => {
      const secret = key !== undefined && ['apikey', 'password', 'myfield'].includes(key.toLowerCase().replace(/[-_]/g, ''));
      if (secret && v !== null && typeof v !== 'boolean' && v !== '<redacted>') return '<redacted>';
      if (Array.isArray(v)) return v.map((item) => reference(item));
      if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, reference(item, k)]));
      return v;
    };
    const space = () => [' ', '', '\n  ', '\t', ''][Math.floor(random() * 5)];
    const spaced = (v: unknown): string => {
      if (Array.isArray(v)) return `[${space()}${v.map((item) => spaced(item) + space()).join(',' + space())}]`;
      if (v !== null && typeof v === 'object') return `{${space()}${Object.entries(v).map(([k, item]) => `${JSON.stringify(k)}${space()}:${space()}${spaced(item)}${space()}`).join(',' + space())}}`;
      return JSON.stringify(v);
    };
    for (let round = 0; round < 500; round++) {
      const v = { root: value(0), password: SECRET };
      const text = spaced(v);
      const result = stored(text)!;
      expect(JSON.parse(result.raw.toString()), text).toEqual(reference(v));
      expect(result.value).toEqual(reference(v));
    }
  });

  it('re-encodes a protobuf event whose decoded value held a secret', async () => {
    await loadAguiProtoDecoder();
    const { encode, decode } = await import('@ag-ui/proto');
    const event = { type: EventType.STATE_SNAPSHOT, snapshot: { apiKey: SECRET, count: 2 } };
    const payload = encode(event);
    const frame = Buffer.alloc(4 + payload.length);
    frame.writeUInt32BE(payload.length, 0);
    frame.set(payload, 4);
    const value = decodeAguiProto(payload).value;
    const result = redactor.redact(value, frame, undefined, 'proto')!;
    expect(result.raw.includes(SECRET)).toBe(false);
    expect(result.raw.readUInt32BE(0)).toBe(result.raw.length - 4);
    expect(decode(result.raw.subarray(4))).toMatchObject({ type: EventType.STATE_SNAPSHOT, snapshot: { apiKey: '<redacted>', count: 2 } });
    expect(result.value).toMatchObject({ snapshot: { apiKey: '<redacted>', count: 2 } });
  });

  it('survives any nesting depth', () => {
    const deep = '['.repeat(200_000) + `{"password":"${SECRET}"}` + ']'.repeat(200_000);
    const result = redactor.redactTruncated(Buffer.from(deep))!;
    expect(result.includes(SECRET)).toBe(false);
    // A value that came without its text (a decoded protobuf event), and what a miss report prints.
    const value: unknown = JSON.parse(deep);
    const stored = redactor.redact(value, Buffer.from('frame'), undefined)!;
    expect(stored.raw.includes(SECRET)).toBe(false);
    expect(stored.raw.toString() === deep.replace(`"${SECRET}"`, '"<redacted>"')).toBe(true);
    expect(stringifyJson(redactor.redactValue(value)) === stored.raw.toString()).toBe(true);
  });
});

describe('replay masks', () => {
  it('a redacted query parameter matches any live value, and is counted', () => {
    const names = new Set(redactedQueryNames('a=1&token=%3Credacted%3E'));
    expect([...names]).toEqual(['token']);
    expect(maskQuery(`a=1&token=${SECRET}`, names)).toEqual({ query: 'a=1&token=%3Credacted%3E', masked: 1 });
    expect(maskQuery('a=1', names)).toEqual({ query: 'a=1', masked: 0 });
  });

  it('a redacted or write-only recorded value matches any live value at its place only', () => {
    const recorded = { apiKey: '<redacted>', spec: { env: { K: 'hmac-sha256:00' } }, list: [{ v: '<redacted>' }] };
    const mask = new RedactionMask().addRecorded(recorded, new FieldSpecs(['/spec/env/*']));
    const live = { apiKey: SECRET, spec: { env: { K: 'real' } }, list: [{ v: 'x', w: 1 }], other: SECRET };
    const { value, masked } = mask.apply(live);
    expect(value).toEqual({ apiKey: '<redacted>', spec: { env: { K: '<redacted>' } }, list: [{ v: '<redacted>', w: 1 }], other: SECRET });
    expect(masked).toBe(3);
    expect(live.apiKey).toBe(SECRET);
  });
});
