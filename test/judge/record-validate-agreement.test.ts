/**
 * `record` and `validate` judge the same messages the same way: one pipeline (judge/message-pipeline.ts),
 * one label (core/message-label.ts), one protocol choice. The same traffic is recorded by the real
 * TrafficRecorder into SQLite, then validated twice: as files give it (one stream per exchange) and
 * as the recording itself (`validate rec.db`). Verdicts and labels must be equal message by message.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/store/open-database.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { HttpContext, Sender } from '../../src/core/message.js';
import { RecordingClock } from '../../src/core/recording-clock.js';
import type { Verdict } from '../../src/core/verdict.js';
import { ACP_SUBPROTOCOL } from '../../src/protocols/acp/index.js';
import type { ChannelHint } from '../../src/protocols/protocol.js';
import type { LiveEvent } from '../../src/record/live-events.js';
import { TrafficRecorder } from '../../src/record/pipeline/traffic-recorder.js';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { prepareFindingList } from '../../src/store/finding-list.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { recordingInput } from '../../src/validate/recording-input.js';
import { judgeRecordingLoading } from '../../src/validate/judge-recording.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import type { LoadedInput, SourceStream } from '../../src/validate/message-source.js';
import { validateInput, type JudgedMessage } from '../../src/validate/validate-input.js';
import { piScenario } from '../support/pi-daemon/scenario.js';
import { storedBytes } from '../support/stored-bytes.js';

const SECRET = 'sk-agreement-5f1c2e9a7d';
const JSON_TYPE = { 'content-type': 'application/json' };

interface Step {
  sender: Sender;
  carrier: 'body' | 'event' | 'frame' | 'line';
  value: unknown;
}

/** One exchange as capture sees it: its request line, its response's status and type, its messages in order. */
interface Exchange {
  transport: 'http' | 'sse' | 'ws' | 'stdio';
  method: string;
  path: string;
  status?: number;
  contentType?: string;
  subprotocol?: string;
  steps: Step[];
}

const registry = SchemaRegistry.load({ useEnv: false });
const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-agreement-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function envelope(requestId: string, data: unknown): unknown {
  return { apiVersion: '1.0', requestId, hostInstanceId: '00000000-0000-4000-8000-0000000000d1', ok: true, data };
}

/**
 * An AG-UI run with an event before RUN_STARTED; Pi REST calls across which a session's generation goes
 * down (only a checker that sees every REST exchange, checkerScope 'recording', can tell) and whose
 * env secret comes back in a later answer; a WebSocket no protocol claims; a JSON-RPC stream; a daemon
 * session's extension UI request answered on two connections.
 */
function traffic(): Exchange[] {
  const scenario = piScenario();
  const session = scenario.session as Record<string, unknown>;
  const create = { ...scenario.createRequest, spec: { ...(scenario.createRequest.spec as object), env: { API_TOKEN: SECRET } } };
  const run = { threadId: 't1', runId: 'r1', state: {}, messages: [], tools: [], context: [], forwardedProps: {} };
  return [
    {
      transport: 'sse',
      method: 'POST',
      path: '/agent',
      status: 200,
      contentType: 'text/event-stream',
      steps: [
        { sender: 'client', carrier: 'body', value: run },
        { sender: 'server', carrier: 'event', value: { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'too early' } },
        { sender: 'server', carrier: 'event', value: { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' } },
        { sender: 'server', carrier: 'event', value: { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' } },
      ],
    },
    {
      transport: 'http',
      method: 'POST',
      path: '/v1/session',
      status: 202,
      contentType: 'application/json',
      steps: [{ sender: 'client', carrier: 'body', value: create }],
    },
    {
      transport: 'http',
      method: 'GET',
      path: '/v1/session/agent-a',
      status: 200,
      contentType: 'application/json',
      steps: [{ sender: 'server', carrier: 'body', value: envelope('req-get-1', { ...session, generation: 3, revision: 3 }) }],
    },
    {
      transport: 'http',
      method: 'GET',
      path: '/v1/session/agent-a',
      status: 200,
      contentType: 'application/json',
      // Generation and revision went down, and the env value leaks in the name.
      steps: [{ sender: 'server', carrier: 'body', value: envelope('req-get-2', { ...session, generation: 2, revision: 2, name: `agent ${SECRET}` }) }],
    },
    {
      transport: 'ws',
      method: 'GET',
      path: '/chat',
      steps: [
        { sender: 'client', carrier: 'frame', value: { hello: 'world' } },
        { sender: 'server', carrier: 'frame', value: ['not', 'typed'] },
      ],
    },
    {
      transport: 'ws',
      method: 'GET',
      path: '/v1/session/agent-a/apc',
      subprotocol: ACP_SUBPROTOCOL,
      steps: [
        { sender: 'client', carrier: 'frame', value: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } } },
        { sender: 'server', carrier: 'frame', value: { jsonrpc: '2.0', id: 1, result: { protocolVersion: 1 } } },
        { sender: 'server', carrier: 'frame', value: { jsonrpc: '2.0', id: 7, result: {} } },
      ],
    },
    // A daemon session's extension UI request, answered on its connection, then again on another:
    // only a scope shared by the connections (RecordingScope) knows the id was already answered.
    daemonRpc([
      ['server', { kind: 'event', cursor: 'c1', sequence: 1, event: { type: 'extension_ui_request', id: 'ui-1', method: 'confirm', title: 'Go?' } }],
      ['client', uiAnswer],
      ['server', uiAck()],
    ]),
    daemonRpc([
      ['client', uiAnswer],
      ['server', uiAck('unknown_ui_request')],
    ]),
  ];
}

const uiAnswer = { kind: 'extension_ui_response', response: { type: 'extension_ui_response', id: 'ui-1', confirmed: true } };
const uiAck = (error?: string) => ({ kind: 'response', response: { type: 'response', command: 'extension_ui_response', success: error === undefined, ...(error ? { error } : {}) } });

function daemonRpc(frames: Array<[Sender, unknown]>): Exchange {
  return {
    transport: 'ws',
    method: 'GET',
    path: '/v1/session/pd-x/rpc',
    subprotocol: 'pi-daemon-rpc.v1',
    steps: frames.map(([sender, value]) => ({ sender, carrier: 'frame', value })),
  };
}

interface Recorded {
  file: string;
  /** Each message's verdict as stored, in recording order. */
  verdicts: Verdict[];
  /** The live line's label of each invalid message, by its place in recording order. */
  liveLabels: Map<number, string>;
}

/** Records the traffic as the HTTP forwarder and WebSocket relay hand it over. */
async function record(exchanges: Exchange[], name: string): Promise<Recorded> {
  const file = join(dir, `${name}.db`);
  const writer = RecordingWriter.open(file, { toolVersion: 'test', mode: 'record', schemaHashes: registry.hashes(), startedAt: new Date() });
  const events: LiveEvent[] = [];
  const recorder = new TrafficRecorder({ writer, registry, clock: new RecordingClock(), listener: (event) => events.push(event) });
  const order: Array<{ exchangeId: number; sender: Sender }> = [];
  const liveLabels = new Map<number, string>();
  let seen = 0;
  for (const x of exchanges) {
    if (x.transport === 'stdio') {
      // As the stdio recorder hands it over: each stream's lines through its tap, the first lines held until they name the protocol.
      const exchange = recorder.openExchange({ transport: 'stdio', url: x.path });
      const taps = { client: exchange.tap({ kind: 'lines', sender: 'client', channel: 'stdin', sniffStdio: true }), server: exchange.tap({ kind: 'lines', sender: 'server', channel: 'stdout', sniffStdio: true }) };
      for (const step of x.steps) {
        taps[step.sender].push(Buffer.from(JSON.stringify(step.value) + '\n'));
        order.push({ exchangeId: exchange.id, sender: step.sender });
      }
      await taps.client.end(true);
      await taps.server.end(true);
      exchange.end({ outcome: 'complete' });
      continue;
    }
    const exchange = recorder.openExchange({ transport: x.transport === 'ws' ? 'ws' : 'http', method: x.method, path: x.path, requestHeaders: JSON_TYPE });
    const request: HttpContext = { method: x.method, path: x.path, requestHeaders: JSON_TYPE };
    if (x.transport === 'ws') {
      exchange.update({ status: 101, ...(x.subprotocol ? { subprotocol: x.subprotocol } : {}) });
      exchange.classify({ transport: 'ws', path: x.path, subprotocol: x.subprotocol });
    }
    let answered = false;
    for (const step of x.steps) {
      if (step.sender === 'server' && !answered && x.transport !== 'ws') {
        // The request has ended and the response's head arrived: what the forwarder classifies by.
        exchange.classify({ transport: 'http', method: x.method, path: x.path });
        exchange.update({ status: x.status, transport: x.transport, responseHeaders: { 'content-type': x.contentType! } });
        exchange.classify({ transport: x.transport, method: x.method, path: x.path, contentType: x.contentType });
        answered = true;
      }
      const http = step.carrier === 'body' ? (step.sender === 'client' ? request : { ...request, status: x.status }) : undefined;
      exchange.record(step.sender, Buffer.from(JSON.stringify(step.value)), { carrier: step.carrier, ...(http ? { http } : {}) });
      order.push({ exchangeId: exchange.id, sender: step.sender });
      const invalid = events.length > seen ? events[events.length - 1] : undefined;
      seen = events.length;
      if (invalid?.type === 'invalid-message') liveLabels.set(order.length - 1, invalid.label);
    }
    if (!answered && x.transport !== 'ws') {
      exchange.classify({ transport: 'http', method: x.method, path: x.path });
      exchange.update({ status: x.status, transport: x.transport, responseHeaders: { 'content-type': x.contentType! } });
    }
    exchange.end({ outcome: 'complete' });
  }
  writer.close();
  const reader = RecordingReader.open(file);
  try {
    const verdicts = reader.exchanges().flatMap((e) => reader.messages(e.id).map((m) => m.verdict));
    return { file, verdicts, liveLabels };
  } finally {
    reader.close();
  }
}

/** The same traffic as `validate` reads a file of it: one stream per exchange, REST bodies with their route. */
function asFile(exchanges: Exchange[]): LoadedInput {
  let index = 0;
  const streams: SourceStream[] = exchanges.map((x, i) => {
    // A file of a stdio session's lines (NDJSON) says nothing of its channel.
    const hint: ChannelHint | undefined = x.transport === 'stdio' ? undefined : { transport: x.transport, method: x.method, path: x.path };
    if (hint && x.contentType) hint.contentType = x.contentType;
    if (hint && x.subprotocol) hint.subprotocol = x.subprotocol;
    return {
      label: `#${i + 1}`,
      ...(hint ? { hint } : {}),
      messages: x.steps.map((step) => {
        const text = JSON.stringify(step.value);
        const http: HttpContext | undefined =
          step.carrier === 'body' ? { method: x.method, path: x.path, requestHeaders: JSON_TYPE, ...(step.sender === 'server' ? { status: x.status } : {}) } : undefined;
        return { value: JSON.parse(text), text, sender: step.sender, index: index++, carrier: step.carrier, ...(http ? { http } : {}) };
      }),
    };
  });
  return { file: 'traffic.json', format: 'json-array', streams };
}

/** What must agree: status and findings, not the wording of an unchecked reason. */
const judged = (v: Verdict) => ({ status: v.status, findings: v.findings.map((f) => `${f.severity} ${f.rule} ${f.pointer}: ${f.message}`) });

describe('record and validate agree', async () => {
  const exchanges = traffic();
  const recorded = await record(exchanges, 'agreement');

  it('on every verdict, across exchanges too (a recording-scoped checker, a scope shared by connections), when validate reads the messages as a file', () => {
    const report = validateInput(asFile(exchanges), registry);
    expect(report.messages.map((m) => judged(m.verdict))).toEqual(recorded.verdicts.map(judged));
    // What the agreement stands on: the run rule, the rules across REST exchanges, the leak.
    const rules = recorded.verdicts.flatMap((v) => v.findings.map((f) => f.rule));
    expect(rules).toEqual(
      expect.arrayContaining(['first-event-must-be-run-started', 'session-generation-decreased', 'session-revision-decreased', 'secret-leak', 'extension-ui-unknown-request']),
    );
    const again = recorded.verdicts[recorded.verdicts.length - 2].findings.find((f) => f.rule === 'extension-ui-unknown-request');
    expect(again?.message).toContain('already answered');
    expect(report.messages.map((m) => m.verdict.status)).toEqual(['valid', 'invalid', 'valid', 'valid', 'valid', 'valid', 'invalid', 'unchecked', 'unchecked', 'valid', 'valid', 'invalid', 'invalid', 'valid', 'invalid', 'valid', 'invalid']);
  });

  it('on every verdict when validate reads the recording itself, but for the leak the recording no longer holds', async () => {
    const report = validateInput(recordingInput(recorded.file), registry);
    // The CLI judges each message as it reads it, across interleaved exchanges: the same report.
    expect(await judgeRecordingLoading(recorded.file, registry)).toEqual(report);
    // The env value was stored as a digest and scrubbed from the answer: nothing is left to find.
    const withoutLeaks = (v: Verdict) => judged({ ...v, findings: v.findings.filter((f) => f.rule !== 'secret-leak') });
    expect(report.messages.map((m) => withoutLeaks(m.verdict))).toEqual(recorded.verdicts.map(withoutLeaks));
    expect(recorded.verdicts.flatMap((v) => v.findings).filter((f) => f.rule === 'secret-leak')).toHaveLength(1);
    expect(storedBytes(recorded.file).includes(SECRET)).toBe(false);
  });

  it('on every label: the live line, findings, and validate name each message alike', () => {
    const labels = (messages: JudgedMessage[]) => messages.map((m) => m.label);
    const fromFile = labels(validateInput(asFile(exchanges), registry).messages);
    expect(fromFile).toEqual([
      'POST /agent',
      'TEXT_MESSAGE_CONTENT',
      'RUN_STARTED',
      'RUN_FINISHED',
      'POST /v1/session',
      'response 200',
      'response 200',
      'object',
      'object',
      'initialize',
      'response',
      'response',
      'event:extension_ui_request',
      'extension_ui_response:extension_ui_response',
      'response:response',
      'extension_ui_response:extension_ui_response',
      'response:response',
    ]);
    expect(labels(validateInput(recordingInput(recorded.file), registry).messages)).toEqual(fromFile);
    // The live line names each invalid message as validate does.
    expect(recorded.liveLabels.size).toBe(6);
    for (const [at, label] of recorded.liveLabels) expect(label, `message ${at}`).toBe(fromFile[at]);
    // findings reads the label in SQL: the same one.
    const db = openDatabase(recorded.file, { readonly: true });
    try {
      const rows = [...prepareFindingList(db)({})];
      expect(rows.length).toBeGreaterThan(3);
      const places = recorded.verdicts.map((_, i) => i);
      const byMessage = new Map(rows.map((r) => [`${r.exchange}/${r.seq}`, r.label]));
      const reader = RecordingReader.open(recorded.file);
      try {
        const keys = reader.exchanges().flatMap((e) => reader.messages(e.id).map((m) => `${e.id}/${m.seq}`));
        for (const i of places) if (byMessage.has(keys[i])) expect(byMessage.get(keys[i]), keys[i]).toBe(fromFile[i]);
      } finally {
        reader.close();
      }
    } finally {
      db.close();
    }
  });
});

/**
 * Traffic whose protocol only its messages tell, or that a recording's neighbours could mislead: a
 * WebSocket with no subprotocol on a path no protocol claims, carrying ACP (record used to choose by
 * the channel alone, validate by the frames too); a plain JSON POST beside Pi REST calls (validate of
 * the recording used to judge all HTTP exchanges as one stream, by one protocol); an ACP session on
 * stdio (validate of the recording used to choose by the stdio channel, where Pi RPC wins the tie).
 */
function evidenceTraffic(): Exchange[] {
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } };
  return [
    {
      transport: 'ws',
      method: 'GET',
      path: '/agent-socket',
      steps: [
        { sender: 'client', carrier: 'frame', value: initialize },
        { sender: 'server', carrier: 'frame', value: { jsonrpc: '2.0', id: 1, result: { protocolVersion: 1 } } },
        // An answer to a request nobody sent.
        { sender: 'server', carrier: 'frame', value: { jsonrpc: '2.0', id: 9, result: {} } },
      ],
    },
    {
      transport: 'http',
      method: 'GET',
      path: '/v1/session/agent-a',
      status: 200,
      contentType: 'application/json',
      steps: [{ sender: 'server', carrier: 'body', value: envelope('req-get-1', { ...(piScenario().session as object), generation: 3, revision: 3 }) }],
    },
    {
      transport: 'http',
      method: 'POST',
      path: '/hooks/build',
      status: 200,
      contentType: 'application/json',
      steps: [
        { sender: 'client', carrier: 'body', value: { ref: 'main' } },
        { sender: 'server', carrier: 'body', value: { queued: true } },
      ],
    },
    {
      transport: 'stdio',
      method: 'RUN',
      path: 'agent --acp',
      steps: [
        { sender: 'client', carrier: 'line', value: initialize },
        { sender: 'server', carrier: 'line', value: { jsonrpc: '2.0', id: 1, result: { protocolVersion: 1 } } },
        { sender: 'server', carrier: 'line', value: { jsonrpc: '2.0', id: 5, result: {} } },
      ],
    },
  ];
}

describe('record and validate choose a protocol from the same evidence', async () => {
  const exchanges = evidenceTraffic();
  const recorded = await record(exchanges, 'evidence');

  it('record judges a WebSocket its channel does not name by its first frames, as validate judges a file of them', () => {
    const report = validateInput(asFile(exchanges), registry);
    expect(report.messages.map((m) => judged(m.verdict))).toEqual(recorded.verdicts.map(judged));
    expect(report.messages.map((m) => m.protocol)).toEqual(['acp', 'acp', 'acp', 'pi-rest', undefined, undefined, 'acp', 'acp', 'acp']);
    expect(recorded.verdicts.map((v) => v.status)).toEqual(['valid', 'valid', 'invalid', 'valid', 'unchecked', 'unchecked', 'valid', 'valid', 'invalid']);
  });

  it('validate of the recording judges each exchange by the protocol record stored for it', async () => {
    const report = validateInput(recordingInput(recorded.file), registry);
    expect(await judgeRecordingLoading(recorded.file, registry)).toEqual(report);
    expect(report.messages.map((m) => judged(m.verdict))).toEqual(recorded.verdicts.map(judged));
    const reader = RecordingReader.open(recorded.file);
    try {
      expect(reader.exchanges().map((e) => e.protocol)).toEqual(['acp', 'pi-rest', null, 'acp']);
    } finally {
      reader.close();
    }
  });
});
