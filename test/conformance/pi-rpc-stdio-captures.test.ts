import { describeWithCorpus, corpusDir, fullRegistry, readSharedJson } from '../support/shared.js';
import { expect, it } from 'vitest';
import { piRpcProtocol } from '../../src/protocols/pi-rpc/index.js';
import { PI_RPC_EXTENSION_UI_RESPONSE_REF } from '../../src/protocols/pi-rpc/schema-refs.js';
import { PI_SESSION_API_ID } from '../../src/protocols/pi-rest/schemas.js';
import { Conversation } from '../protocols/pi-rpc/conversation.js';

interface StdioRecord {
  dir: 'in' | 'out';
  t: number;
  msg: Record<string, unknown>;
  verdict: { def?: string; valid?: boolean; note?: string };
}

const FILES = corpusDir('fixtures', 'pi-rpc')
  .filter((name) => name.startsWith('stdio-') && name.endsWith('.json'))
  .sort();

function defOf(schemaRef: string | undefined): string | undefined {
  return schemaRef?.startsWith(`${PI_SESSION_API_ID}#/$defs/`) ? schemaRef.slice(`${PI_SESSION_API_ID}#/$defs/`.length) : schemaRef;
}

describeWithCorpus('pi-rpc: real `pi --mode rpc` stdio captures', () => {
  for (const file of FILES) {
    it(`${file}: every line is judged as the capture says, with no behavioural findings`, () => {
      const { records } = readSharedJson<{ records: StdioRecord[] }>('fixtures', 'pi-rpc', file);
      const channel = new Conversation(piRpcProtocol, fullRegistry(), 'line');
      for (const [index, record] of records.entries()) {
        const sender = record.dir === 'in' ? 'client' : 'server';
        const where = `${file} record ${index}: ${JSON.stringify(record.msg).slice(0, 120)}`;
        if (record.verdict.note !== undefined) {
          // The one unparseable stdin line, stored as {raw}; stock Pi answers it with command "parse".
          const verdict = channel.line(sender, String(record.msg.raw));
          expect(verdict.status, where).toBe('invalid');
          expect(verdict.findings.map((f) => f.rule), where).toEqual(['invalid-json']);
          continue;
        }
        const verdict = channel.send(sender, record.msg);
        const behaviour = verdict.findings.filter((f) => f.rule !== 'schema');
        expect(behaviour, where).toEqual([]);
        if (record.msg.type === 'extension_ui_response') {
          // The fixture validated it against piRpcCommand, whose enum lacks it; stock Pi reads it,
          // and so do we, against the framed frame's inner response object.
          expect(record.verdict.valid, where).toBe(false);
          expect(verdict.status, where).toBe('valid');
          expect(verdict.schemaRef, where).toBe(PI_RPC_EXTENSION_UI_RESPONSE_REF);
          continue;
        }
        if (record.msg.type === 'no_such_command') {
          expect(record.verdict.valid, where).toBe(false);
          expect(verdict.status, where).toBe('invalid');
          expect(verdict.findings, where).toEqual([expect.objectContaining({ rule: 'schema', pointer: '/type' })]);
          continue;
        }
        expect(record.verdict.valid, where).toBe(true);
        expect(verdict.status, where).toBe('valid');
        expect(verdict.findings, where).toEqual([]);
        expect(defOf(verdict.schemaRef), where).toBe(record.verdict.def);
      }
      expect(channel.end('complete')).toEqual([]);
    });
  }
});
