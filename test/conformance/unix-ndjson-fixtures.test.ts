import { describeWithCorpus, bareRegistry, corpusJson, fullRegistry, readSharedJson, registryWithout } from '../support/shared.js';
import { expect, it } from 'vitest';
import type { Sender } from '../../src/core/message.js';
import { unixNdjsonProtocol } from '../../src/protocols/unix-ndjson/index.js';
import { PI_NDJSON_V1_ID, PI_NDJSON_V2_ID } from '../../src/protocols/unix-ndjson/schemas.js';
import { MessageJudge } from '../../src/judge/message-judge.js';
import { SecretTracker } from '../../src/judge/secret-tracker.js';

interface LineRecord {
  dir: 'client->server' | 'server->client';
  msg: unknown;
  verdict: { schema: string; valid: boolean };
}

interface ManifestEntry {
  file: string;
  schemaRef: string | null;
  expectValid?: boolean;
}

const capture = corpusJson<{ records: LineRecord[] }>({ records: [] }, 'fixtures', 'pi-daemon', 'captured', 'unix-ndjson.json');
const manifest = corpusJson<{ entries: ManifestEntry[] }>({ entries: [] }, 'fixtures', 'pi-daemon', 'upstream-v0.3.0', 'manifest.json');
const upstream = manifest.entries.filter((e) => e.file.startsWith('unix-ndjson/'));
const senderOf = (dir: LineRecord['dir']): Sender => (dir === 'client->server' ? 'client' : 'server');
const fixture = (file: string) => readSharedJson<Record<string, unknown>>('fixtures', 'pi-daemon', 'upstream-v0.3.0', file);

describeWithCorpus('unix-ndjson: captured session', () => {
  it('judges every line as its recorded verdict says, with no behavioural findings', () => {
    expect(capture.records.length).toBe(54);
    const secrets = new SecretTracker();
    const judge = new MessageJudge(unixNdjsonProtocol.createChecker({ registry: fullRegistry(), secrets }), secrets);
    for (const [i, record] of capture.records.entries()) {
      const verdict = judge.judge({ sender: senderOf(record.dir), carrier: 'line', value: record.msg, text: JSON.stringify(record.msg) });
      expect({ i, status: verdict.status, findings: verdict.findings }).toEqual({ i, status: record.verdict.valid ? 'valid' : 'invalid', findings: [] });
      expect(verdict.schemaRef?.startsWith(`${PI_NDJSON_V1_ID}#/$defs/`)).toBe(true);
    }
    expect(judge.end('complete')).toEqual([]);
  });

  it('guesses every line’s sender from its shape', () => {
    for (const record of capture.records) expect(unixNdjsonProtocol.guessSender(record.msg)).toBe(senderOf(record.dir));
  });

  it('sniffs every line as its own', () => {
    for (const record of capture.records) expect(unixNdjsonProtocol.sniff(record.msg)).toBeGreaterThanOrEqual(0.8);
  });
});

describeWithCorpus('unix-ndjson: upstream v0.3.0 fixtures', () => {
  for (const entry of upstream) {
    it(`${entry.file} is ${entry.expectValid ? 'valid' : 'invalid'} against ${entry.schemaRef}`, () => {
      const value = fixture(entry.file);
      const checker = unixNdjsonProtocol.createChecker({ registry: fullRegistry(), secrets: new SecretTracker() });
      const sender = unixNdjsonProtocol.guessSender(value);
      // A lone response would answer nothing; the upstream command fixture with its requestId comes first.
      if (value.kind === 'response') {
        const command = upstream.map((e) => fixture(e.file)).find((v) => v.operation !== undefined && v.requestId === value.requestId);
        expect(command, `command for ${String(value.requestId)}`).toBeDefined();
        expect(checker.judge({ sender: 'client', carrier: 'line', value: command }).status).toBe('valid');
      }
      const verdict = checker.judge({ sender, carrier: 'line', value });
      expect(verdict.status).toBe(entry.expectValid ? 'valid' : 'invalid');
      const docId = entry.schemaRef === 'protocol-v2.schema.json' ? PI_NDJSON_V2_ID : PI_NDJSON_V1_ID;
      expect(verdict.schemaRef?.startsWith(`${docId}#/$defs/`)).toBe(true);
      // Lone events warn that nothing attached to them; nothing else is expected.
      for (const f of verdict.findings) expect(f.rule).toBe('ndjson-event-not-attached');
    });
  }
});

describeWithCorpus('unix-ndjson: without --schemas', () => {
  it('judges every captured line with the shipped protocol schemas, as the extra schemas do', () => {
    const bare = unixNdjsonProtocol.createChecker({ registry: bareRegistry(), secrets: new SecretTracker() });
    const full = unixNdjsonProtocol.createChecker({ registry: fullRegistry(), secrets: new SecretTracker() });
    for (const record of capture.records) {
      const message = { sender: senderOf(record.dir), carrier: 'line', value: record.msg } as const;
      const verdict = bare.judge(message);
      expect(verdict.status).not.toBe('unchecked');
      expect(verdict).toEqual(full.judge(message));
    }
  });
});

describeWithCorpus('unix-ndjson: without the protocol schemas', () => {
  const withoutProtocol = () => registryWithout(PI_NDJSON_V1_ID, PI_NDJSON_V2_ID);

  it('leaves every line unchecked, naming protocol.schema.json and --schemas', () => {
    const checker = unixNdjsonProtocol.createChecker({ registry: withoutProtocol(), secrets: new SecretTracker() });
    for (const record of capture.records) {
      const verdict = checker.judge({ sender: senderOf(record.dir), carrier: 'line', value: record.msg });
      expect(verdict.status).toBe('unchecked');
      expect(verdict.reason).toContain(PI_NDJSON_V1_ID);
      expect(verdict.reason).toContain('--schemas');
      expect(verdict.findings).toEqual([]);
    }
  });

  it('still reports behavioural errors, which make the line invalid', () => {
    const checker = unixNdjsonProtocol.createChecker({ registry: withoutProtocol(), secrets: new SecretTracker() });
    const verdict = checker.judge({ sender: 'server', carrier: 'line', value: fixture('unix-ndjson/success.response.json') });
    expect(verdict.status).toBe('invalid');
    expect(verdict.reason).toContain(PI_NDJSON_V1_ID);
    expect(verdict.findings.map((f) => f.rule)).toEqual(['ndjson-unknown-request-id']);
  });
});
