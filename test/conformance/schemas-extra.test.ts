import { describeWithCorpus, bareRegistry, corpusDir, fullRegistry, readSharedJson, sharedPath } from '../support/shared.js';
import { expect, it } from 'vitest';
import { piRpcProtocol } from '../../src/protocols/pi-rpc/index.js';
import { piRestProtocol } from '../../src/protocols/pi-rest/index.js';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { PI_NDJSON_V1_ID } from '../../src/protocols/unix-ndjson/schemas.js';
import { MessageJudge } from '../../src/judge/message-judge.js';
import { SecretTracker } from '../../src/judge/secret-tracker.js';
import { Conversation } from '../protocols/pi-rpc/conversation.js';
import { responseMessage } from '../protocols/pi-rest/pi-rest-helpers.js';

/** The real third-party schemas of ../shared/schemas-extra, where the behaviour tests use our stand-ins. */
describeWithCorpus('the real extra schemas (../shared/schemas-extra)', () => {
  it('resolve every $ref of the project schemas', () => {
    expect(fullRegistry().unresolvedRefs()).toEqual([]);
    expect(fullRegistry().has(PI_NDJSON_V1_ID)).toBe(true);
  });

  it('are read from AGENT_PROXY_SCHEMAS', () => {
    const before = process.env.AGENT_PROXY_SCHEMAS;
    process.env.AGENT_PROXY_SCHEMAS = sharedPath('schemas-extra');
    try {
      expect(SchemaRegistry.load().unresolvedRefs()).toEqual([]);
    } finally {
      if (before === undefined) delete process.env.AGENT_PROXY_SCHEMAS;
      else process.env.AGENT_PROXY_SCHEMAS = before;
    }
  });

  it('check the dashboard draft envelopes the OpenAPI writes inline (apiEnvelopeBase + data $def)', () => {
    const secrets = new SecretTracker();
    const judge = new MessageJudge(piRestProtocol.createChecker({ registry: fullRegistry(), secrets }), secrets);
    const body = { apiVersion: '1.0', requestId: 'req-d1', hostInstanceId: 'host-1', ok: true, data: { draftId: 'd-1' } };
    const verdict = judge.judge(responseMessage('GET', '/v1/dashboard/session-drafts/d-1', {}, 200, body));
    expect(verdict.status).toBe('invalid');
    expect(verdict.schemaRef).toBe('https://a.skh.am/pi-daemon/dashboard-session-draft.schema.json#/$defs/resource');
    expect(verdict.findings.length).toBeGreaterThan(0);
    for (const f of verdict.findings) {
      expect(f.pointer.startsWith('/data')).toBe(true);
      expect(f.message.startsWith(`${f.pointer}: `)).toBe(true);
    }
  });

  it('change no verdict of the real pi --mode rpc captures: raw Pi RPC needs none of them', () => {
    const files = corpusDir('fixtures', 'pi-rpc').filter((n) => n.startsWith('stdio-') && n.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const { records } = readSharedJson<{ records: Array<{ dir: string; msg: Record<string, unknown>; verdict: { note?: string } }> }>('fixtures', 'pi-rpc', file);
      const full = new Conversation(piRpcProtocol, fullRegistry(), 'line');
      const bare = new Conversation(piRpcProtocol, bareRegistry(), 'line');
      for (const record of records.filter((r) => r.verdict.note === undefined)) {
        const sender = record.dir === 'in' ? 'client' : 'server';
        expect(bare.send(sender, record.msg), file).toEqual(full.send(sender, record.msg));
      }
    }
  });
});
