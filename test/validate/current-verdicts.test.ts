/**
 * A recording judged by older rules is judged again when it is read (validate/current-verdicts.ts), in
 * a scratch copy: `findings` of a recording made before `response-uncorrelatable` existed reports the
 * id-less over-capacity rejection, the user's file is left as it was, and a recording of the current
 * rules is read as stored.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RULES_VERSION } from '../../src/core/rules-version.js';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { openWithCurrentVerdicts } from '../../src/validate/current-verdicts.js';
import { importNdjsonFile } from '../../src/store/ndjson-import.js';
import { PI_RPC_UNCORRELATED_REJECTION, writeNdjsonRecording, type HandExchange } from '../support/ndjson-recording.js';
import { runBatch } from '../cli/cli-batch.js';

const registry = () => SchemaRegistry.load({ useEnv: false });

const burst = PI_RPC_UNCORRELATED_REJECTION;

function rulesRead(file: string): string[] {
  const reader = openWithCurrentVerdicts(file, { registry });
  try {
    return reader.messages(1).flatMap((m) => m.verdict.findings.map((f) => `${m.seq} ${f.severity} ${f.rule}`));
  } finally {
    reader.close();
  }
}

describe('reading a recording judged by older rules', () => {
  it('judges it again with the current rules, in a scratch copy: the user file is not written to', () => {
    const file = writeNdjsonRecording([burst], 'old.ndjson', { rulesVersion: null });
    const before = readFileSync(file);
    expect(rulesRead(file)).toContain('4 warning response-uncorrelatable');
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('leaves a .db recording as it was too', () => {
    const ndjson = writeNdjsonRecording([burst], 'old.ndjson', { rulesVersion: null });
    const db = ndjson.replace(/\.ndjson$/, '.db');
    importNdjsonFile(ndjson, db);
    const before = readFileSync(db);
    expect(rulesRead(db)).toContain('4 warning response-uncorrelatable');
    expect(readFileSync(db).equals(before)).toBe(true);
    // Still the old rules' verdicts in the file: read again, it is judged again.
    expect(rulesRead(db)).toContain('4 warning response-uncorrelatable');
  });

  it('keeps the findings judging cannot make again: a credential stored redacted (secret-in-traffic) stays found', () => {
    const found = { rule: 'secret-in-traffic', severity: 'warning' as const, pointer: '/command/note', message: 'an OpenAI API key (sk-…) is in this message at /command/note; it was forwarded as sent and stored as <redacted>' };
    const keyed: HandExchange = { ...burst, messages: [{ ...burst.messages[0], json: { kind: 'command', command: { id: 'c1', type: 'get_state', note: '<redacted>' } }, findings: [found] }, ...burst.messages.slice(1)] };
    const file = writeNdjsonRecording([keyed], 'old.ndjson', { rulesVersion: null });
    expect(rulesRead(file)).toEqual(expect.arrayContaining(['1 warning secret-in-traffic', '4 warning response-uncorrelatable']));
  });

  it('reads a recording of the current rules as stored, without judging it again', () => {
    const file = writeNdjsonRecording([burst], 'current.ndjson', { rulesVersion: RULES_VERSION });
    expect(rulesRead(file)).toEqual([]);
  });

  it('findings, show and validate report the rule for a recording made before it existed, as for one made now', async () => {
    const file = writeNdjsonRecording([burst], 'old.ndjson', { rulesVersion: null });
    const [found, shown, validated] = await runBatch(
      [
        ['findings', '--json', '--rule', 'response-uncorrelatable', file],
        ['show', '--json', '--exchange', '1', file],
        ['validate', '--json', file],
      ],
      { real: [] },
    );
    const findings = JSON.parse(found.stdout);
    expect(findings.findings.map((f: { exchange: number; seq: number; severity: string }) => [f.exchange, f.seq, f.severity])).toEqual([[1, 4, 'warning']]);
    const show = JSON.parse(shown.stdout);
    expect(show.messages[3].findings.map((f: { rule: string }) => f.rule)).toContain('response-uncorrelatable');
    const validate = JSON.parse(validated.stdout);
    expect(validate.messages[3].verdict.findings.map((f: { rule: string }) => f.rule)).toContain('response-uncorrelatable');
  });
});
