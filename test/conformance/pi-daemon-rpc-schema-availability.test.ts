import { describeWithCorpus, bareRegistry, corpusJson, fullRegistry } from '../support/shared.js';
import { expect, it } from 'vitest';
import { frameRef, type FrameKind } from '../../src/protocols/pi-daemon-rpc/frame-kinds.js';
import { piDaemonRpcProtocol } from '../../src/protocols/pi-daemon-rpc/index.js';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { PI_SESSION_API_ID } from '../../src/protocols/pi-rest/schemas.js';
import { Conversation } from '../protocols/pi-rpc/conversation.js';

/** A real SchemaRegistry that loaded no document: the session-api schema is missing. */
function emptyRegistry(): SchemaRegistry {
  return new (SchemaRegistry as unknown as new (documents: Map<string, unknown>) => SchemaRegistry)(new Map());
}

const records = corpusJson<{ records: Array<{ kind: string; conn: string; dir?: string; data?: Record<string, unknown> }> }>({ records: [] }, 
  'fixtures',
  'pi-daemon',
  'captured',
  'rpc-websocket.json',
).records;

describeWithCorpus('pi-daemon-rpc without the extra schemas (no --schemas)', () => {
  it('judges every captured framed connection exactly as with the extra schemas', () => {
    for (const conn of ['ws-1', 'ws-2', 'ws-3', 'ws-4']) {
      const full = new Conversation(piDaemonRpcProtocol, fullRegistry());
      const bare = new Conversation(piDaemonRpcProtocol, bareRegistry());
      for (const record of records.filter((r) => r.conn === conn && r.kind === 'ws')) {
        const sender = record.dir === 'client->server' ? 'client' : 'server';
        const verdict = bare.send(sender, record.data);
        expect(verdict.status).toBe('valid');
        expect(verdict).toEqual(full.send(sender, record.data));
      }
    }
  });
});

describeWithCorpus('pi-daemon-rpc when the session-api schema is not loaded', () => {
  it('judges every captured frame unchecked with the reason, never valid, and the behaviour rules find nothing', () => {
    const c = new Conversation(piDaemonRpcProtocol, emptyRegistry());
    for (const record of records.filter((r) => r.conn === 'ws-1' && r.kind === 'ws')) {
      const verdict = c.send(record.dir === 'client->server' ? 'client' : 'server', record.data);
      expect(verdict.status).toBe('unchecked');
      expect(verdict.schemaRef).toBe(frameRef(record.data!.kind as FrameKind));
      expect(verdict.reason).toContain(PI_SESSION_API_ID);
      expect(verdict.findings).toEqual([]);
    }
  });
});
