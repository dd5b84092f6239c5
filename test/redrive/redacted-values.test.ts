/** RedactedValues: the env file read, and the values put where the recording redacted, every other byte as recorded. */
import { describe, expect, it } from 'vitest';
import { RedactedValues } from '../../src/redrive/redacted-values.js';
import type { ScriptExchange } from '../../src/replay/replay-script.js';
import { UsageError } from '../../src/core/errors.js';

const DIGEST = `hmac-sha256:${'ab'.repeat(32)}`;

function exchange(raw: string): ScriptExchange {
  return {
    id: 7, transport: 'http', protocol: undefined, method: 'POST', path: '/', query: null, url: '/', status: 200, subprotocol: null, requestHeaders: null, responseHeaders: null,
    startedMs: 0, endedMs: 1, outcome: 'complete', errorCode: null, errorMessage: null, closeCode: null, closeReason: null, stdinEndedMs: null,
    messages: [{ seq: 1, sender: 'client', carrier: 'body', channel: null, raw: Buffer.from(raw), json: JSON.parse(raw), tOffsetMs: 0, truncated: false }],
  };
}

describe('RedactedValues', () => {
  it('reads FIELD=value lines: comments and blank lines skipped, one pair of quotes removed, the value as written after the first =', () => {
    const values = RedactedValues.parse('# CI secrets\n\napiKey="a=b c"\n/spec/env/TOKEN=\'t-1\'\nplain = x y \n', 'ci.env');
    expect(values.fields).toEqual(['apiKey', '/spec/env/TOKEN', 'plain']);
    const [filled] = values.fill([exchange('{"apiKey":"<redacted>","spec":{"env":{"TOKEN":"<redacted>"}},"plain":"<redacted>"}')]).exchanges;
    expect(filled.messages[0].json).toEqual({ apiKey: 'a=b c', spec: { env: { TOKEN: 't-1' } }, plain: 'x y' });
  });

  it('refuses a line that is not FIELD=value, naming its number and never its text', () => {
    expect(() => RedactedValues.parse('ok=1\nsecret-without-equals\n', 'ci.env')).toThrow(new UsageError("--redacted-values ci.env: line 2 is not FIELD=value (a key name or a JSON pointer, '=', the value)"));
  });

  it('puts each value in the raw bytes where its marker was, a pointer before a key name, every other byte as recorded', () => {
    const values = RedactedValues.parse('/b/1/key=by-pointer\nkey=by-name\nTOKEN=env-value\n', 'f');
    const raw = '{ "a" : {"key":"<redacted>"},\n  "b": [1, {"key" :"<redacted>"}], "env": {"TOKEN": "' + DIGEST + '"} }';
    const { exchanges, missing } = values.fill([exchange(raw)]);
    expect(missing).toEqual([]);
    expect(exchanges[0].messages[0].raw.toString()).toBe('{ "a" : {"key":"by-name"},\n  "b": [1, {"key" :"by-pointer"}], "env": {"TOKEN": "env-value"} }');
  });

  it('names each redacted field no value is given for, and leaves those messages as they were', () => {
    const recorded = exchange('{"apiKey":"<redacted>","other":"<redacted>","text":"a <redacted> inside text is not a field"}');
    const { exchanges, missing } = RedactedValues.parse('apiKey=k', 'f').fill([recorded]);
    expect(missing).toEqual([{ exchangeId: 7, pointer: '/other' }]);
    expect(exchanges[0]).toBe(recorded);
  });
});
