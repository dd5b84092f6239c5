/**
 * The contract every module in PROTOCOLS must keep (src/protocols/protocol.ts), one shared suite run
 * for each, in the manner of Polly.JS's adapter and persister tests: a new protocol passes it before
 * the proxy relies on it. The examples come from protocol-examples.ts (our stand-ins).
 */
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/core/finding.js';
import { FieldSpecs, parseIgnoreOption, parsePointer } from '../../src/core/field-specs.js';
import type { InboundMessage } from '../../src/core/message.js';
import type { Verdict } from '../../src/core/verdict.js';
import { SecretTracker } from '../../src/judge/secret-tracker.js';
import { classifyChannel, PROTOCOLS, sniffMessage } from '../../src/protocols/modules.js';
import type { ChannelHint, ProtocolChecker, ProtocolModule } from '../../src/protocols/protocol.js';
import { PROTOCOL_IDS, type ProtocolId } from '../../src/protocols/catalog.js';
import { echoFieldsOf, matchIgnoredFieldsOf, writeOnlyFieldsOf } from '../../src/protocols/field-roles.js';
import { testRegistry } from '../support/shared.js';
import { PROTOCOL_EXAMPLES, type ProtocolExamples } from './protocol-examples.js';

/** Values a checker, sniffer or sender guess may be handed: anything JSON can hold, and worse. */
const ARBITRARY_VALUES: unknown[] = [
  undefined,
  null,
  0,
  -1.5,
  Number.NaN,
  '',
  'not json at all',
  true,
  [],
  [1, 'two', null],
  {},
  { type: 42 },
  { type: 'RUN_STARTED' },
  { jsonrpc: '2.0' },
  { jsonrpc: '2.0', id: {}, method: 7 },
  { jsonrpc: '2.0', id: 1, result: null, error: null },
  { kind: 'event', event: null },
  { kind: 'command', command: 'x' },
  { kind: 'response', response: [] },
  { id: null, type: 'response', success: 'yes' },
  { protocolVersion: 9, operation: {}, requestId: [] },
  { apiVersion: '1.0', ok: 'maybe', data: null },
  { requestId: 'r', spec: { cwd: 7 }, expectedGeneration: 'x', sha256: 1 },
  { messages: 'none', threadId: 1, runId: null },
  { ['__proto__']: { polluted: true }, constructor: 'x' },
  { deep: { deeper: { deepest: [[[[{ x: [1, { y: [] }] }]]]] } } },
];

/** Hints a classifier may be handed, well-formed or not. */
const ARBITRARY_HINTS: ChannelHint[] = [
  { transport: 'http' },
  { transport: 'sse' },
  { transport: 'proto' },
  { transport: 'ws' },
  { transport: 'stdio' },
  { transport: 'ndjson' },
  { transport: 'file' },
  { transport: 'http', method: '', path: '' },
  { transport: 'http', method: 'BREW', path: '/v1/../../etc/passwd?x=1#y', contentType: ';;;', requestBody: { threadId: 1 } },
  { transport: 'sse', method: 'POST', path: '/', contentType: 'TEXT/EVENT-STREAM; charset=utf-8', requestBody: null },
  { transport: 'ws', path: '/v1/session//rpc', subprotocol: '' },
  { transport: 'ws', path: '/v1/session/a/apc', subprotocol: 'pi-rpc.v999, agent-client-protocol.v1' },
  { transport: 'ws', subprotocol: '\u0000' },
  { transport: 'http', path: '/v1/session/%ZZ', method: 'get', requestBody: ['x'] },
];

const registry = testRegistry();

function examplesOf(module: ProtocolModule<ProtocolId>): ProtocolExamples | undefined {
  const make = Object.hasOwn(PROTOCOL_EXAMPLES, module.id) ? PROTOCOL_EXAMPLES[module.id] : undefined;
  return make?.();
}

function checkerFor(module: ProtocolModule, examples: ProtocolExamples): ProtocolChecker {
  const requestBody = examples.channels.find((c) => c.requestBody !== undefined)?.requestBody;
  return module.createChecker({ registry, secrets: new SecretTracker(), requestBody, channel: { transport: examples.channels[0].transport, path: examples.channels[0].path } });
}

function expectFinding(finding: Finding): void {
  expect(typeof finding.rule === 'string' && finding.rule.length > 0, `rule of ${JSON.stringify(finding)}`).toBe(true);
  expect(['error', 'warning']).toContain(finding.severity);
  expect(finding.pointer === '' || finding.pointer.startsWith('/'), `pointer of ${JSON.stringify(finding)}`).toBe(true);
  expect(typeof finding.message === 'string' && finding.message.length > 0, `message of ${JSON.stringify(finding)}`).toBe(true);
}

function expectVerdict(verdict: Verdict): void {
  expect(['valid', 'invalid', 'unchecked']).toContain(verdict.status);
  expect(Array.isArray(verdict.findings)).toBe(true);
  for (const finding of verdict.findings) expectFinding(finding);
  if (verdict.findings.some((f) => f.severity === 'error')) expect(verdict.status).toBe('invalid');
}

/** A message of the conversation, named in a failed assertion by its place, sender and value. */
function describeMessage(m: InboundMessage, i: number): string {
  return `#${i} ${m.sender}: ${JSON.stringify(m.value)?.slice(0, 120)}`;
}

describe('the protocol catalog', () => {
  it('holds exactly one module for each ProtocolId', () => {
    expect(PROTOCOLS.map((p) => p.id).sort()).toEqual([...PROTOCOL_IDS].sort());
  });

  it('has examples for every module in PROTOCOLS and for no other id', () => {
    const missing = PROTOCOLS.filter((p) => examplesOf(p) === undefined).map((p) => p.id);
    expect(missing, 'protocols in PROTOCOLS without examples in test/protocols/protocol-examples.ts').toEqual([]);
    expect(Object.keys(PROTOCOL_EXAMPLES).sort()).toEqual(PROTOCOLS.map((p) => p.id).sort());
  });
});

describe.each(PROTOCOLS.map((module) => [module.id, module] as const))('protocol contract: %s', (_id: ProtocolId, module: ProtocolModule<ProtocolId>) => {
  const examples = (): ProtocolExamples => {
    const found = examplesOf(module);
    if (!found) throw new Error(`no examples for '${module.id}' in test/protocols/protocol-examples.ts`);
    return found;
  };

  it('has examples: a channel to claim, a conversation with both sides, and lone messages', () => {
    const { channels, conversation, lone } = examples();
    expect(channels.length).toBeGreaterThan(0);
    expect(new Set(conversation.map((m) => m.sender))).toEqual(new Set(['client', 'server']));
    expect(lone.length).toBeGreaterThan(0);
  });

  it('names itself: a title and a known checker scope', () => {
    expect(module.title.trim().length).toBeGreaterThan(0);
    expect([undefined, 'stream', 'recording']).toContain(module.checkerScope);
  });

  it('declares answers (ProtocolFacts.answers) exactly when its views assemble them, and assembles any messages without a throw', () => {
    expect(module.answers === true, 'answers: true in its facts, for show to load it').toBe(module.views?.answer !== undefined);
    const answer = module.views?.answer;
    if (answer === undefined) return;
    const view = (sender: 'client' | 'server', json: unknown, seq: number) => ({ seq, sender, carrier: 'event', channel: null, tOffsetMs: seq, status: 'valid' as const, json });
    answer(examples().conversation.map((m, i) => view(m.sender, m.value, i + 1)));
    for (const value of ARBITRARY_VALUES) answer([view('client', value, 1), view('server', value, 2), view('server', value, 3)]);
  });

  it('classify: a score in [0, 1] for any hint, never a throw; its own channels are claimed by it', () => {
    for (const hint of ARBITRARY_HINTS) {
      const score = module.classify(hint);
      expect(score, JSON.stringify(hint)).toBeGreaterThanOrEqual(0);
      expect(score, JSON.stringify(hint)).toBeLessThanOrEqual(1);
    }
    for (const hint of examples().channels) {
      expect(module.classify(hint), JSON.stringify(hint)).toBeGreaterThan(0);
      expect(classifyChannel(hint)?.id, JSON.stringify(hint)).toBe(module.id);
    }
  });

  it('sniff and guessSender: an answer for any value, never a throw; its lone messages are its own', () => {
    for (const value of ARBITRARY_VALUES) {
      const score = module.sniff(value);
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThanOrEqual(1);
      expect(['client', 'server']).toContain(module.guessSender(value));
    }
    for (const value of examples().lone) expect(sniffMessage(value)?.id, JSON.stringify(value)).toBe(module.id);
  });

  it('judges its example conversation valid, against schemas the registry resolves, and ends it without errors', () => {
    const { conversation } = examples();
    const checker = checkerFor(module, examples());
    const refs = new Set<string>();
    conversation.forEach((message, i) => {
      const verdict = checker.judge(message);
      expectVerdict(verdict);
      expect({ at: describeMessage(message, i), status: verdict.status, findings: verdict.findings, reason: verdict.reason }).toEqual({ at: describeMessage(message, i), status: 'valid', findings: [], reason: undefined });
      if (verdict.schemaRef !== undefined) refs.add(verdict.schemaRef);
    });
    const end = checker.end('complete');
    for (const finding of end) expectFinding(finding);
    expect(end.filter((f) => f.severity === 'error')).toEqual([]);
    // Messages are checked against schemas (plain JSON-RPC's envelope rules are code: it has no
    // schema of its own), and every location named resolves in the registry.
    if (module.id !== 'json-rpc') expect(refs.size).toBeGreaterThan(0);
    for (const ref of refs) expect(registry.check(ref), ref).toMatchObject({ ok: true });
  });

  it('yields findings, never a throw, for malformed messages (unparsed, or of any shape) from either side', () => {
    const { conversation } = examples();
    const carriers = [...new Set(conversation.map((m) => m.carrier))];
    const http = conversation.find((m) => m.http)?.http;
    const checker = checkerFor(module, examples());
    for (const sender of ['client', 'server'] as const) {
      for (const carrier of carriers) {
        const unparsed = checker.judge({ sender, carrier, value: undefined, parseError: 'Unexpected token } in JSON', text: '{"a":}', ...(http ? { http } : {}) });
        expectVerdict(unparsed);
        expect(unparsed.status).not.toBe('valid');
        for (const value of ARBITRARY_VALUES) {
          const verdict = checker.judge({ sender, carrier, value, text: JSON.stringify(value), ...(http ? { http } : {}) });
          expectVerdict(verdict);
        }
        for (const value of [null, 42, 'text', [], true]) {
          const verdict = checker.judge({ sender, carrier, value, text: JSON.stringify(value), ...(http ? { http } : {}) });
          expect(verdict.status, `${sender} ${JSON.stringify(value)}`).not.toBe('valid');
        }
      }
    }
    for (const finding of checker.end('aborted')) expectFinding(finding);
  });

  it('yields findings, never a throw, for its conversation in the wrong order', () => {
    const checker = checkerFor(module, examples());
    const found: Finding[] = [];
    for (const message of [...examples().conversation].reverse()) {
      const verdict = checker.judge(message);
      expectVerdict(verdict);
      found.push(...verdict.findings);
    }
    const end = checker.end('aborted');
    for (const finding of end) expectFinding(finding);
    found.push(...end);
    expect(found.length).toBeGreaterThan(0);
  });

  it('declares the rules its end() reports about a stream as a whole (streamEndRules), so every output says "at the end of the stream"', () => {
    const { conversation } = examples();
    const declared = new Set(module.streamEndRules ?? []);
    // Cut after each message in turn: whatever was left open is reported by end().
    for (let cut = 1; cut <= conversation.length; cut++) {
      const checker = checkerFor(module, examples());
      for (const message of conversation.slice(0, cut)) checker.judge(message);
      for (const finding of checker.end('aborted')) {
        if (finding.pointer === '') expect(declared, `${finding.rule} after ${cut} message(s)`).toContain(finding.rule);
      }
    }
  });

  it('replay hints: volatile, echo and write-only fields are well-formed paths', () => {
    const hints = module.replay;
    expect(hints, 'replay hints').toBeDefined();
    // What matching ignores, what it substitutes and what it takes as any value, from the module's field roles.
    const [volatileFields, echoFields, writeOnlyFields] = [matchIgnoredFieldsOf(module), echoFieldsOf(module), writeOnlyFieldsOf(module)];
    expect(() => parseIgnoreOption(volatileFields, 'volatileFields')).not.toThrow();
    expect(() => parseIgnoreOption(writeOnlyFields, 'writeOnlyFields')).not.toThrow();
    const [headers, paths] = [echoFields.filter((f) => f.startsWith('header:')), echoFields.filter((f) => !f.startsWith('header:'))];
    expect(() => parseIgnoreOption(paths, 'echoFields')).not.toThrow();
    for (const header of headers) expect(header).toMatch(/^header:[a-z0-9!#$%&'*+.^_`|~-]+$/);
    // An echoed value is one the client mints anew each run, so matching must ignore it too: an echo
    // field outside the volatile set would make every later run miss.
    const volatile = new FieldSpecs(volatileFields);
    for (const field of paths) expect(volatile.matches(parsePointer(field)), `echo field ${field} is volatile`).toBe(true);
  });

  it('miss answers: the replay can answer a miss in the protocol\'s own shape', () => {
    const answers = module.replay?.missAnswers;
    expect(answers?.http ?? answers?.message, 'missAnswers.http or missAnswers.message').toBeDefined();
    // Replay's start line says what a miss gets in the module's own words.
    expect(answers?.summary, 'missAnswers.summary').toMatch(/^\S.* gets? .+\S$/);
    const facts = { message: 'GET /nowhere matches no recorded exchange', details: { reason: 'no-match' } };
    const { conversation, channels } = examples();
    const client = conversation.find((m) => m.sender === 'client');
    if (answers?.http) {
      const channel = channels[0];
      const answer = answers.http({ method: channel.method ?? 'POST', path: channel.path ?? '/', headers: {}, body: client?.value }, facts, {});
      // AG-UI answers in-band (a 200 event stream carrying RUN_ERROR); others with an error status.
      expect(Number.isInteger(answer.status) && answer.status >= 200 && answer.status <= 599, `status ${answer.status}`).toBe(true);
      expect(answer.headers['content-length']).toBe(String(answer.body.length));
    }
    if (answers?.message) {
      const context = { message: facts.message, recordedMethods: new Set<string>() };
      const answer = answers.message(client?.value, context);
      expect(answer, 'the answer to a client message that matched nothing').toBeDefined();
      expect(() => JSON.stringify(answer)).not.toThrow();
      for (const value of ARBITRARY_VALUES) expect(() => answers.message!(value, context)).not.toThrow();
    }
  });

  it('routeTemplate and redactForStorage, where present, never throw', () => {
    const template = module.replay?.routeTemplate;
    if (template) {
      for (const hint of [...ARBITRARY_HINTS, ...examples().channels]) {
        const route = template(hint.method ?? 'GET', hint.path ?? '/');
        expect(route === undefined || typeof route === 'string').toBe(true);
      }
    }
    if (module.redactForStorage) {
      const secrets = new SecretTracker();
      for (const message of examples().conversation) module.redactForStorage(message, secrets);
      for (const value of ARBITRARY_VALUES) {
        for (const sender of ['client', 'server'] as const) expect(() => module.redactForStorage!({ sender, carrier: 'body', value }, secrets)).not.toThrow();
      }
    }
  });
});
