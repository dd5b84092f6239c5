import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { aguiProtocol, AGUI_PROTO_MEDIA_TYPE, EVENT_TYPES } from '../../../src/protocols/agui/index.js';
import { defNameOf } from '../../../src/protocols/agui/event-types.js';
import { aguiSchemas } from '../../../src/protocols/agui/event-schema.js';
import { AGUI_SCHEMA_ID } from '../../../src/protocols/agui/schemas.js';
import { MessageJudge } from '../../../src/judge/message-judge.js';
import { SecretTracker } from '../../../src/judge/secret-tracker.js';
import { bareRegistry, testRegistry } from '../../support/shared.js';
import { runStream } from './helpers.js';

const schema = JSON.parse(readFileSync(fileURLToPath(new URL('../../../schemas/ag-ui.schema.json', import.meta.url)), 'utf8')) as {
  $defs: Record<string, { $anchor?: string; enum?: string[] }>;
};

describe('event type dispatch', () => {
  it("EVENT_TYPES is exactly the schema's EventType enum", () => {
    expect([...EVENT_TYPES].sort()).toEqual([...schema.$defs.EventType.enum!].sort());
    expect(EVENT_TYPES).toHaveLength(31);
  });

  it('every type dispatches to a $def of its own, with an $anchor of the same name', () => {
    for (const type of EVENT_TYPES) {
      const name = defNameOf(type);
      expect(schema.$defs[name], name).toBeDefined();
      expect(schema.$defs[name].$anchor).toBe(name);
    }
  });

  it('resolves each check once per registry, never the root Event union', () => {
    const registry = testRegistry();
    const a = aguiSchemas(registry);
    expect(aguiSchemas(registry)).toBe(a);
    for (const type of EVENT_TYPES) {
      const check = a.events.get(type)!;
      expect(check.ok, type).toBe(true);
      expect(check.ref).toBe(`${AGUI_SCHEMA_ID}#${defNameOf(type)}`);
    }
    expect(a.runAgentInput.ref).toBe(`${AGUI_SCHEMA_ID}#RunAgentInput`);
  });

  it('works with the project schemas alone (no --schemas)', () => {
    const deltas = ['Hello', ', ', 'world', '.'];
    const events = [
      { type: 'RUN_STARTED', threadId: 't-1', runId: 'r-1' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm-1', role: 'assistant' },
      ...deltas.map((delta) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm-1', delta })),
      { type: 'TEXT_MESSAGE_END', messageId: 'm-1' },
      { type: 'RUN_FINISHED', threadId: 't-1', runId: 'r-1' },
    ];
    const result = runStream(events, { registry: bareRegistry() });
    expect(result.verdicts.map((v) => v.status)).toEqual(events.map(() => 'valid'));
  });
});

describe('unknown and malformed events', () => {
  it('an unknown type is an error naming EventType, at /type', () => {
    const result = runStream([{ type: 'RUN_STARTED', threadId: 't', runId: 'r' }, { type: 'THINKING_START' }, { type: 'RUN_FINISHED', threadId: 't', runId: 'r' }]);
    const verdict = result.verdicts[1];
    expect(verdict.status).toBe('invalid');
    expect(verdict.schemaRef).toBe(`${AGUI_SCHEMA_ID}#EventType`);
    expect(verdict.findings).toHaveLength(1);
    const [finding] = verdict.findings;
    expect(finding).toMatchObject({ rule: 'unknown-event-type', severity: 'error', pointer: '/type' });
    expect(finding.message).toContain("'THINKING_START' is not an AG-UI event type (EventType)");
    expect(finding.message).toContain('"TEXT_MESSAGE_START"');
    // The client drops it in enforcement, so it changes nothing else: the run is intact.
    expect(result.located.filter((f) => f.at !== 1)).toEqual([]);
  });

  it('an unknown type does not count as the first event', () => {
    const result = runStream([{ type: 'HELLO' }, { type: 'RUN_STARTED', threadId: 't', runId: 'r' }, { type: 'RUN_FINISHED', threadId: 't', runId: 'r' }]);
    expect(result.located.map((f) => [f.at, f.rule])).toEqual([[0, 'unknown-event-type']]);
  });

  it('a missing type is an error at /type', () => {
    const verdict = runStream([{ threadId: 't' }]).verdicts[0];
    expect(verdict.status).toBe('invalid');
    expect(verdict.findings[0]).toMatchObject({ rule: 'unknown-event-type', pointer: '/type' });
    expect(verdict.findings[0].message).toContain("every AG-UI event carries a 'type' from EventType");
  });

  it('a frame that is not a JSON object is an error', () => {
    const verdict = runStream([[1, 2]]).verdicts[0];
    expect(verdict).toMatchObject({ status: 'invalid', findings: [{ rule: 'event-not-object', pointer: '' }] });
  });

  it('a schema-invalid event gets readable findings at the right pointers', () => {
    const result = runStream([
      { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 42, colour: 'red' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm' },
      { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
    ]);
    const verdict = result.verdicts[2];
    expect(verdict.status).toBe('invalid');
    expect(verdict.schemaRef).toBe(`${AGUI_SCHEMA_ID}#TextMessageContentEvent`);
    expect(verdict.findings.map((f) => [f.rule, f.pointer, f.message])).toEqual([
      ['schema', '/delta', '/delta: must be string'],
      ['schema', '/colour', "/colour: unexpected property 'colour'"],
    ]);
    // Behaviour still runs on it: the message stays open and closes normally.
    expect(result.located.filter((f) => f.at !== 2)).toEqual([]);
  });

  it("the cancelled outcome is reported where it is, not as the root union's noise", () => {
    // RUN_FINISHED with an outcome type the draft schema does not have.
    const events = [
      { type: 'RUN_STARTED', threadId: 't-c', runId: 'r-c', protocolVersion: '1.1' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm-c', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm-c', delta: 'delivered before the stop' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm-c' },
      { type: 'RUN_FINISHED', threadId: 't-c', runId: 'r-c', outcome: { type: 'cancelled' } },
    ];
    const findings = runStream(events).verdicts[4].findings;
    expect(findings.length).toBeGreaterThan(0);
    expect(findings.length).toBeLessThanOrEqual(3);
    expect(findings.every((f) => f.rule === 'schema' && f.pointer.startsWith('/outcome'))).toBe(true);
  });
});

describe('the request (client message)', () => {
  const request = { threadId: 't', runId: 'r', messages: [{ id: 'u1', role: 'user', content: 'hello' }], state: { count: 1 } };

  function judgeWithRequest(requestValue: unknown, events: unknown[]) {
    const secrets = new SecretTracker();
    const judge = new MessageJudge(aguiProtocol.createChecker({ registry: testRegistry(), secrets }), secrets);
    const first = judge.judge({ sender: 'client', carrier: 'body', value: requestValue });
    const rest = events.map((value) => judge.judge({ sender: 'server', carrier: 'event', value }));
    return { first, rest, end: judge.end('complete') };
  }

  it('is validated against #RunAgentInput', () => {
    const { first } = judgeWithRequest(request, []);
    expect(first).toEqual({ status: 'valid', schemaRef: `${AGUI_SCHEMA_ID}#RunAgentInput`, findings: [] });
  });

  it('an invalid request gets findings with pointers', () => {
    const { first } = judgeWithRequest({ threadId: 't', runId: 7 }, []);
    expect(first.status).toBe('invalid');
    expect(first.findings.map((f) => [f.pointer, f.message])).toEqual(
      expect.arrayContaining([
        ['', "(root): missing required property 'messages'"],
        ['/runId', '/runId: must be string'],
      ]),
    );
  });

  it('a request judged before the events is the baseline for runId, threadId and state', () => {
    const { rest, end } = judgeWithRequest(request, [
      { type: 'RUN_STARTED', threadId: 't', runId: 'r-other' },
      { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/count', value: 2 }] },
      { type: 'RUN_FINISHED', threadId: 't', runId: 'r-other' },
    ]);
    expect(rest[0].findings.map((f) => [f.rule, f.pointer])).toEqual([['run-id-differs-from-input', '/runId']]);
    expect(rest[1].findings).toEqual([]);
    expect(end).toEqual([]);
  });

  it('a request with no response events is a truncated stream', () => {
    const { end } = judgeWithRequest(request, []);
    expect(end.map((f) => f.rule)).toEqual(['stream-truncated']);
  });
});

describe('module', () => {
  const rai = { threadId: 't', runId: 'r', messages: [] };

  it('classify: the exact proto type, or a RunAgentInput body; an event stream alone is anybody\'s (its events decide)', () => {
    expect(aguiProtocol.classify({ transport: 'sse', method: 'POST', path: '/', contentType: 'text/event-stream' })).toBe(0);
    expect(aguiProtocol.classify({ transport: 'sse', method: 'POST', path: '/mcp', contentType: 'text/event-stream; charset=utf-8', requestBody: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })).toBe(0);
    expect(aguiProtocol.classify({ transport: 'sse', method: 'POST', path: '/agent', contentType: 'text/event-stream; charset=utf-8', requestBody: rai })).toBeGreaterThanOrEqual(0.9);
    expect(aguiProtocol.channelEvidence({ transport: 'sse', method: 'POST', path: '/agent', requestBody: rai })).toBe('RunAgentInput body');
    expect(aguiProtocol.classify({ transport: 'proto', method: 'POST', path: '/', contentType: AGUI_PROTO_MEDIA_TYPE })).toBeGreaterThanOrEqual(0.9);
    expect(aguiProtocol.classify({ transport: 'http', method: 'POST', path: '/run', requestBody: rai })).toBeGreaterThanOrEqual(0.9);
  });

  it('classify: not Pi daemon paths, not GETs, not other transports', () => {
    expect(aguiProtocol.classify({ transport: 'sse', method: 'POST', path: '/v1/session/a/events', contentType: 'text/event-stream', requestBody: rai })).toBe(0);
    expect(aguiProtocol.classify({ transport: 'http', method: 'GET', path: '/health' })).toBe(0);
    expect(aguiProtocol.classify({ transport: 'ws', path: '/' })).toBe(0);
    expect(aguiProtocol.classify({ transport: 'stdio' })).toBe(0);
    expect(aguiProtocol.classify({ transport: 'http', method: 'POST', path: '/x', contentType: 'application/json', requestBody: { hello: 1 } })).toBe(0);
  });

  it('classify: a parameter on the proto type is only a weak match (the client would not parse it)', () => {
    const score = aguiProtocol.classify({ transport: 'http', method: 'POST', path: '/', contentType: `${AGUI_PROTO_MEDIA_TYPE}; q=1` });
    expect(score).toBeGreaterThan(0);
    expect(score).toBeLessThan(0.5);
  });

  it('sniff: events and RunAgentInputs are ours, other shapes are not', () => {
    expect(aguiProtocol.sniff({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'x' })).toBeGreaterThanOrEqual(0.9);
    expect(aguiProtocol.sniff(rai)).toBeGreaterThanOrEqual(0.9);
    expect(aguiProtocol.sniff({ type: 'message_start' })).toBe(0);
    expect(aguiProtocol.sniff({ jsonrpc: '2.0', id: 1, method: 'initialize' })).toBe(0);
    expect(aguiProtocol.sniff('RUN_STARTED')).toBe(0);
    expect(aguiProtocol.sniff(null)).toBe(0);
  });

  it('guessSender: RunAgentInput from the client, events from the server', () => {
    expect(aguiProtocol.guessSender(rai)).toBe('client');
    expect(aguiProtocol.guessSender({ type: 'RUN_STARTED', threadId: 't', runId: 'r' })).toBe('server');
  });
});
