/**
 * The CLI's `validate rec` judges each message as it reads it (validate/judge-recording.ts), while the
 * package API's validateInput judges recordingInput's whole input: both must give the same report,
 * for every protocol's stand-in traffic, with its protocol named or not, when the request its
 * checker keeps is not the exchange's first message, and for an exchange without messages.
 * (test/judge/record-validate-agreement.test.ts compares them on recorded traffic whose exchanges interleave.)
 */
import { describe, expect, it } from 'vitest';
import { isJsonObject } from '../../src/core/json.js';
import type { InboundMessage } from '../../src/core/message.js';
import { PROTOCOL_IDS, type ProtocolId } from '../../src/protocols/catalog.js';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { openRecording } from '../../src/store/open-recording.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import type { JudgedMessage, ValidationReport } from '../../src/validate/judge-input.js';
import { judgeRecordingLoading } from '../../src/validate/judge-recording.js';
import { recordingInput } from '../../src/validate/recording-input.js';
import { validateInput } from '../../src/validate/validate-input.js';
import { PROTOCOL_EXAMPLES } from '../protocols/protocol-examples.js';
import { AGUI_SSE_RUN, writeNdjsonRecording, type HandExchange, type HandMessage } from '../support/ndjson-recording.js';

const registry = SchemaRegistry.load({ useEnv: false });

const handMessage = (m: InboundMessage): HandMessage => ({ sender: m.sender, carrier: m.carrier, json: m.value });

/** The protocol's stand-in conversation as one recorded exchange on its first channel. */
function exampleExchange(id: ProtocolId, messages = PROTOCOL_EXAMPLES[id]().conversation.map(handMessage)): HandExchange {
  const channel = PROTOCOL_EXAMPLES[id]().channels[0]!;
  const transport = channel.transport === 'proto' || channel.transport === 'file' ? 'http' : channel.transport;
  return { transport, protocol: id, method: channel.method, path: channel.path, subprotocol: channel.subprotocol, status: transport === 'ws' ? 101 : 200, messages };
}

/** The same, its first server message moved before the first client one: the checker's request is read ahead. */
function serverFirst(id: ProtocolId): HandExchange {
  const messages = PROTOCOL_EXAMPLES[id]().conversation.map(handMessage);
  const at = messages.findIndex((m) => m.sender === 'server');
  if (at > 0) messages.unshift(...messages.splice(at, 1));
  return exampleExchange(id, messages);
}

async function expectSameReports(file: string, forced?: ProtocolId): Promise<void> {
  const judged = await judgeRecordingLoading(file, registry, forced);
  expect(judged).toEqual(validateInput(recordingInput(file), registry, forced));
  expect(JSON.stringify(judged)).toBe(JSON.stringify(validateInput(recordingInput(file), registry, forced)));
  await expectSameNotable(file, forced);
}

const isNotable = (m: JudgedMessage): boolean => m.verdict.status !== 'valid' || m.verdict.findings.length > 0;

/** The text report's (`kept: 'notable'`): the messages it prints, those of the whole report, and the same summary. */
async function expectSameNotable(file: string, forced?: ProtocolId): Promise<ValidationReport> {
  const all = await judgeRecordingLoading(file, registry, forced);
  const notable = await judgeRecordingLoading(file, registry, forced, undefined, 'notable');
  expect(notable).toEqual({ ...all, messages: all.messages.filter(isNotable) });
  return notable;
}

describe('validate of a recording, judged as it is read', () => {
  it.each(PROTOCOL_IDS)('gives the report validateInput gives, for %s', async (id) => {
    const file = writeNdjsonRecording([exampleExchange(id), serverFirst(id), { transport: 'http', protocol: null, method: 'DELETE', path: '/mcp', status: 200, messages: [] }]);
    await expectSameReports(file);
    await expectSameReports(file, id);
  });

  it.each(PROTOCOL_IDS)('gives it when a stream repeats its texts, broken ones too, for %s (their messages share a value)', async (id) => {
    const conversation = PROTOCOL_EXAMPLES[id]().conversation.map(handMessage);
    // Every top-level string made a number: no protocol's schema takes that.
    const broken = conversation.map((m) => (isJsonObject(m.json) ? { ...m, json: Object.fromEntries(Object.entries(m.json).map(([k, v]) => [k, typeof v === 'string' ? 42 : v])) } : m));
    const repeated = [...conversation, ...conversation, ...broken, ...conversation, ...broken, ...broken];
    const file = writeNdjsonRecording([exampleExchange(id, repeated), exampleExchange(id, broken)]);
    await expectSameReports(file);
    const report = await judgeRecordingLoading(file, registry);
    expect(report.summary.invalid).toBeGreaterThanOrEqual(4);
  });

  it('gives it for every protocol in one recording, and says what it found', async () => {
    const file = writeNdjsonRecording(PROTOCOL_IDS.flatMap((id) => [exampleExchange(id), serverFirst(id)]));
    await expectSameReports(file);
    const report = await judgeRecordingLoading(file, registry);
    expect(new Set(report.protocols)).toEqual(new Set(PROTOCOL_IDS));
    expect(report.summary.messages).toBe(PROTOCOL_IDS.reduce((n, id) => n + 2 * PROTOCOL_EXAMPLES[id]().conversation.length, 0));
  });

  it('gives the checker the request read ahead when an event comes first: a run whose thread is not the one asked for', async () => {
    const file = writeNdjsonRecording([
      {
        ...AGUI_SSE_RUN,
        messages: [
          { sender: 'server', json: { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' } },
          { sender: 'client', carrier: 'body', json: { threadId: 't2', runId: 'r1', state: {}, messages: [], tools: [], context: [], forwardedProps: {} } },
          { sender: 'server', json: { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' } },
        ],
      },
    ]);
    await expectSameReports(file);
    const report = await judgeRecordingLoading(file, registry);
    expect(report.messages[0]!.verdict.findings.map((f) => f.pointer)).toContain('/threadId');
  });

  it('keeps, for the text report, a stream\'s last message that was valid until its end gave it findings', async () => {
    const [request, first, second] = PROTOCOL_EXAMPLES.openai().conversation.map(handMessage);
    // Cut after two chunks: no finish_reason, no usage, no [DONE], each said on the second chunk when the stream ends.
    const file = writeNdjsonRecording([exampleExchange('openai', [request!, first!, second!]), exampleExchange('openai')]);
    await expectSameReports(file);
    const notable = await expectSameNotable(file);
    expect(notable.messages.filter((m) => m.exchange === 1).map((m) => m.seq)).toEqual([3]);
    expect(notable.messages[0]!.verdict.findings.map((f) => f.rule)).toContain('openai-done-missing');
    expect(notable.summary.messages).toBe(3 + PROTOCOL_EXAMPLES.openai().conversation.length);
  });

  it('labels a stream\'s last message given findings by its end as the whole report does, when it is the recording\'s last or another stream came after it', async () => {
    const [request, first, second] = PROTOCOL_EXAMPLES.openai().conversation.map(handMessage);
    // Cut after two chunks, once last in the recording (labelled when the report is made) and once before a stream that completes.
    const cut = () => exampleExchange('openai', [request!, first!, second!]);
    for (const exchanges of [[exampleExchange('openai'), cut()], [cut(), exampleExchange('openai'), cut()]]) {
      const notable = await expectSameNotable(writeNdjsonRecording(exchanges));
      const lastOfCut = notable.messages.filter((m) => m.seq === 3 && m.verdict.findings.some((f) => f.rule === 'openai-done-missing'));
      expect(lastOfCut.length).toBe(exchanges.length === 2 ? 1 : 2);
      for (const m of lastOfCut) expect(m.label).not.toBe('');
    }
  });

  it('reads every message once, in id order, a page at a time across exchanges', () => {
    const file = writeNdjsonRecording(PROTOCOL_IDS.map((id) => exampleExchange(id)));
    const reader = openRecording(file);
    try {
      const byExchange = [...RecordingReader.exchangeColumns(reader)].flatMap((e) => [...RecordingReader.messagesToJudge(reader, e.id)]);
      const inOrder = [...RecordingReader.messagesToJudgeInOrder(reader, 3)];
      expect(inOrder.map((m) => m.id)).toEqual(byExchange.map((m) => m.id).sort((a, b) => a - b));
      expect(inOrder).toEqual([...byExchange].sort((a, b) => a.id - b.id));
      expect(new Set(inOrder.map((m) => m.exchangeId)).size).toBe(PROTOCOL_IDS.length);
    } finally {
      reader.close();
    }
  });

  it('tells its progress of every message it judges', async () => {
    const file = writeNdjsonRecording([exampleExchange('agui'), exampleExchange('mcp')]);
    const heard: string[] = [];
    const report = await judgeRecordingLoading(file, registry, undefined, { total: (n) => heard.push(`holds ${n}`), read: () => heard.push('read') });
    expect(heard).toEqual([`holds ${report.summary.messages}`, ...report.messages.map(() => 'read')]);
  });
});
