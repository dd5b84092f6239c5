/**
 * The NDJSON line checks: each field's problem named as before, the same where code generation is
 * refused (`--disallow-code-generation-from-strings`, where the checks loop over their rules instead
 * of being compiled). The built module is run in a child under the flag on the same lines.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { LineProblem, checkExchangeLine, checkMessageLine, checkRecordingLine } from '../../src/store/ndjson-check.js';
import { REPO } from '../cli/run-cli.js';

const RECORDING = { type: 'recording', format: 'agent-proxy/ndjson', version: 3, toolVersion: '0.1.0', target: null, listen: null, mode: 'record', startedAt: '2026-01-01T00:00:00.000Z', endedAt: null, schemaHashes: {} };
const EXCHANGE = { type: 'exchange', id: 1, transport: 'http', startedMs: 0, requestHeaders: { a: 'b' } };
const MESSAGE = { type: 'message', exchange: 1, seq: 1, sender: 'server', carrier: 'event', tOffsetMs: 1.5, rawJson: { a: 1 } };

type Kind = 'recording' | 'exchange' | 'message';
/** A line of `kind` with `changes` made (undefined: the field removed). */
type Case = [kind: Kind, changes: Record<string, unknown>, expected: string];

const CASES: Case[] = [
  ['recording', {}, 'ok'],
  ['recording', { version: 0 }, '"version" must be a positive whole number, not 0'],
  ['recording', { version: 99 }, 'newer: NDJSON recording version 99, but this agent-proxy reads versions up to 3; upgrade agent-proxy to read it'],
  ['recording', { toolVersion: undefined }, '"toolVersion" is missing'],
  ['recording', { target: 7 }, '"target" must be a string or null, not 7'],
  ['recording', { mode: '' }, '"mode" must be a non-empty string, not ""'],
  ['recording', { startedAt: 'soon' }, '"startedAt" must be an ISO 8601 date, not "soon"'],
  ['recording', { schemaHashes: { a: 1 } }, '"schemaHashes" must be an object of strings, not an object'],
  ['recording', { rulesVersion: null }, '"rulesVersion" must be a positive whole number, not null'],
  ['exchange', {}, 'ok'],
  ['exchange', { id: -1 }, '"id" must be a positive whole number, not -1'],
  ['exchange', { transport: 'pigeon' }, '"transport" must be http, sse, proto, ws, stdio, ndjson, tunnel, not "pigeon"'],
  ['exchange', { startedMs: undefined }, '"startedMs" is missing'],
  ['exchange', { status: '200' }, '"status" must be a whole number or null, not "200"'],
  ['exchange', { requestHeaders: { a: [1] } }, '"requestHeaders" must be an object of header values or null, not an object'],
  ['exchange', { tunnel: { clientBytes: 1 } }, '"tunnel" must be an object with "clientBytes" and "serverBytes" or null, not an object'],
  ['message', {}, 'ok'],
  ['message', { exchange: '1' }, '"exchange" must be a positive whole number (the id of an exchange line above), not "1"'],
  ['message', { sender: 'peer' }, '"sender" must be client or server, not "peer"'],
  ['message', { tOffsetMs: undefined }, '"tOffsetMs" is missing'],
  ['message', { channel: 3 }, '"channel" must be a string or null, not 3'],
  ['message', { rawBase64: '!!' }, '"rawBase64" must be a base64 string, not "!!"'],
  ['message', { rawAfter: 'x' }, '"rawAfter" must be white space (spaces, tabs, CR, LF), not "x"'],
  ['message', { rawJson: undefined }, 'a message needs "raw", "rawBase64" or "rawJson"'],
  ['message', { raw: 'x' }, 'a message has either "raw" (or "rawBase64") or "rawJson", not both'],
  ['message', { verdict: { status: 'fine' } }, '"verdict.status" must be valid, invalid or unchecked, not "fine"'],
  ['message', { verdict: { status: 'valid', reason: undefined, findings: null } }, '"verdict.findings" must be an array, not null'],
  ['message', { verdict: { status: 'invalid', findings: [{ rule: 'r', severity: 'error', pointer: '', message: 'm' }, 1] } }, '"verdict.findings[1]" must be an object, not 1'],
  ['message', { verdict: { status: 'invalid', findings: [{ rule: 'r', severity: 'fatal', pointer: '', message: 'm' }] } }, '"verdict.findings[0].severity" must be error or warning, not "fatal"'],
  ['message', { verdict: { status: 'invalid', findings: [{ rule: 'r', severity: 'error', message: 'm' }] } }, '"verdict.findings[0].pointer" is missing'],
];

/** Each case's line checked: `ok` and the nulls the check filled in, or its problem. */
function outcome([kind, changes]: Case): string {
  const line: Record<string, unknown> = { ...{ recording: RECORDING, exchange: EXCHANGE, message: MESSAGE }[kind] };
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) delete line[key];
    else line[key] = value;
  }
  try {
    if (kind === 'recording') checkRecordingLine(line);
    else if (kind === 'exchange') checkExchangeLine(line);
    else checkMessageLine(line, 3);
    return 'ok';
  } catch (error) {
    if (!(error instanceof LineProblem)) throw error;
    return `${error.newer ? 'newer: ' : ''}${error.message}`;
  }
}

describe('the NDJSON line checks', () => {
  it('name the field and what it must be, and fill in an absent nullable field with null', () => {
    expect(CASES.map((c) => outcome(c))).toEqual(CASES.map(([, , expected]) => expected));
    const exchange: Record<string, unknown> = { ...EXCHANGE };
    checkExchangeLine(exchange);
    expect(exchange.status).toBeNull();
    expect(exchange.protocol).toBeNull();
    const message: Record<string, unknown> = { ...MESSAGE };
    checkMessageLine(message, 3);
    expect(message).toMatchObject({ channel: null, rawTruncatedFrom: null, verdict: { status: 'valid' } });
    expect(Object.hasOwn(message, 'raw')).toBe(false);
  });

  it('say the same where code generation is refused', () => {
    // The built module (npm run build), in a child that may not compile code from text.
    const script = `
      const { LineProblem, checkExchangeLine, checkMessageLine, checkRecordingLine } = await import(${JSON.stringify(`${REPO}/dist/store/ndjson-check.js`)});
      let compiled = true;
      try { new Function('return 1'); } catch { compiled = false; }
      const CASES = ${JSON.stringify(CASES.map(([kind, changes]) => [kind, Object.entries(changes).map(([key, value]) => (value === undefined ? [key] : [key, value]))]))};
      const LINES = ${JSON.stringify({ recording: RECORDING, exchange: EXCHANGE, message: MESSAGE })};
      const out = CASES.map(([kind, changes]) => {
        const line = { ...LINES[kind] };
        for (const change of changes) if (change.length === 1) delete line[change[0]]; else line[change[0]] = change[1];
        try {
          if (kind === 'recording') checkRecordingLine(line); else if (kind === 'exchange') checkExchangeLine(line); else checkMessageLine(line, 3);
          return 'ok';
        } catch (error) {
          if (!(error instanceof LineProblem)) throw error;
          return (error.newer ? 'newer: ' : '') + error.message;
        }
      });
      console.log(JSON.stringify({ compiled, out }));
    `;
    const child = spawnSync(process.execPath, ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(child.stdout)).toEqual({ compiled: false, out: CASES.map(([, , expected]) => expected) });
  });
});
