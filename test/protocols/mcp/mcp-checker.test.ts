/**
 * The MCP checker, rule by rule: for each, a session that breaks it is caught at the message that
 * breaks it, and the same session kept correct draws nothing. The schema is the negotiated version's,
 * by method and direction (a result by the request it answers), never the root union.
 */
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../../src/core/finding.js';
import type { Sender } from '../../../src/core/message.js';
import type { Verdict } from '../../../src/core/verdict.js';
import { SecretTracker } from '../../../src/judge/secret-tracker.js';
import { protocolById } from '../../../src/protocols/modules.js';
import { bareRegistry } from '../../support/shared.js';

type Line = [Sender, unknown];

const mcp = protocolById('mcp');

/** Judges a session over stdio; each message's verdict, and the findings of its end. */
function judge(lines: readonly Line[], how: 'complete' | 'aborted' = 'complete'): { verdicts: Verdict[]; end: Finding[] } {
  const checker = mcp.createChecker({ registry: bareRegistry(), secrets: new SecretTracker(), channel: { transport: 'stdio' } });
  const verdicts = lines.map(([sender, value]) => checker.judge({ sender, carrier: 'line', value, text: JSON.stringify(value) }));
  return { verdicts, end: checker.end(how) };
}

/** `#index rule` for every finding of a session, its end's as `#end rule`. */
function rulesOf(lines: readonly Line[], how: 'complete' | 'aborted' = 'complete'): string[] {
  const { verdicts, end } = judge(lines, how);
  return [...verdicts.flatMap((v, i) => v.findings.map((f) => `#${i} ${f.rule}`)), ...end.map((f) => `#end ${f.rule}`)];
}

const rpc = (id: number | string | null, method: string, params?: unknown) => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
const note = (method: string, params?: unknown) => ({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
const ok = (id: number | string | null, result: unknown = {}) => ({ jsonrpc: '2.0', id, result });

const CLIENT_CAPS = { roots: { listChanged: true } };
const SERVER_CAPS = { tools: {}, prompts: {}, resources: { subscribe: true }, logging: {}, completions: {} };

/** initialize, its result and notifications/initialized, at `version`. */
function opening(version = '2025-11-25', clientCaps: unknown = CLIENT_CAPS, serverCaps: unknown = SERVER_CAPS): Line[] {
  return [
    ['client', rpc(0, 'initialize', { protocolVersion: version, capabilities: clientCaps, clientInfo: { name: 'c', version: '1' } })],
    ['server', ok(0, { protocolVersion: version, capabilities: serverCaps, serverInfo: { name: 's', version: '1' } })],
    ['client', note('notifications/initialized')],
  ];
}

const TOOL = { name: 'echo', inputSchema: { type: 'object', properties: { message: { type: 'string' } } } };

describe('MCP checker: schemas', () => {
  it('judges a session valid against the schema of the negotiated version, each message by its method and direction', () => {
    for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
      const lines: Line[] = [
        ...opening(version),
        ['client', rpc(1, 'tools/list')],
        ['server', ok(1, { tools: [TOOL] })],
        ['client', rpc(2, 'tools/call', { name: 'echo', arguments: { message: 'hi' } })],
        ['server', ok(2, { content: [{ type: 'text', text: 'hi' }] })],
        ['server', rpc(0, 'roots/list')],
        ['client', ok(0, { roots: [{ uri: 'file:///w', name: 'w' }] })],
        ['client', rpc(3, 'ping')],
        ['server', ok(3)],
      ];
      const { verdicts, end } = judge(lines);
      expect(verdicts.map((v) => v.status), version).toEqual(lines.map(() => 'valid'));
      expect(end).toEqual([]);
      expect(verdicts[6].schemaRef, version).toMatch(new RegExp(`^https://modelcontextprotocol.io/schema/${version}/schema.json#/(\\$defs|definitions)/CallToolResult$`));
      expect(verdicts[5].schemaRef, version).toMatch(/\/CallToolRequest$/);
      expect(verdicts[8].schemaRef, version).toMatch(/\/ListRootsResult$/);
    }
  });

  it('checks a result by the request it answers, not the union of every result', () => {
    // A tools/call result without `content` passes ServerResult's union (EmptyResult), not CallToolResult.
    const { verdicts } = judge([...opening(), ['client', rpc(1, 'tools/call', { name: 'echo' })], ['server', ok(1, { isError: false })]]);
    expect(verdicts[4]).toMatchObject({ status: 'invalid', schemaRef: expect.stringMatching(/\/CallToolResult$/) });
    expect(verdicts[4].findings.map((f) => [f.rule, f.pointer])).toEqual([['schema', '/result']]);
  });

  it('checks a task-augmented call\'s answer as a CreateTaskResult when it made a task, and a task poll\'s by its own method', () => {
    const task = { ttl: 60000 };
    const created = { task: { taskId: 't1', status: 'working', createdAt: '2026-01-01T00:00:00Z', lastUpdatedAt: '2026-01-01T00:00:00Z', ttl: 60000 } };
    const caps = { ...SERVER_CAPS, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } };
    const lines: Line[] = [
      ...opening('2025-11-25', {}, caps),
      ['client', rpc(1, 'tools/call', { name: 'slow', arguments: {}, task })],
      ['server', ok(1, created)],
      // The SDK sends its task params on its polls too: they are still tasks/get.
      ['client', rpc(2, 'tasks/get', { taskId: 't1', task })],
      ['server', ok(2, created.task)],
      ['client', rpc(3, 'tools/call', { name: 'fast', arguments: {}, task })],
      ['server', ok(3, { content: [] })],
    ];
    const { verdicts } = judge(lines);
    expect(verdicts.map((v) => v.status)).toEqual(lines.map(() => 'valid'));
    expect([verdicts[4], verdicts[6], verdicts[8]].map((v) => v.schemaRef?.replace(/^.*\//, ''))).toEqual(['CreateTaskResult', 'GetTaskResult', 'CallToolResult']);
  });

  it('checks params by the method, so a tools/call without its name is invalid', () => {
    const { verdicts } = judge([...opening(), ['client', rpc(1, 'tools/call', { arguments: {} })]]);
    expect(verdicts[3].status).toBe('invalid');
    expect(verdicts[3].findings.some((f) => f.rule === 'schema' && f.pointer === '/params')).toBe(true);
  });

  it('judges by the version the server chose, not the one the client asked for', () => {
    const lines: Line[] = [
      ['client', rpc(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'c', version: '1' } })],
      ['server', ok(0, { protocolVersion: '2025-03-26', capabilities: SERVER_CAPS, serverInfo: { name: 's', version: '1' } })],
      ['client', note('notifications/initialized')],
      ['client', rpc(1, 'ping')],
    ];
    const { verdicts } = judge(lines);
    expect(verdicts[0].schemaRef).toMatch(/2025-11-25\/schema.json#\/\$defs\/InitializeRequest$/);
    expect(verdicts[1].schemaRef).toMatch(/2025-03-26\/schema.json#\/definitions\/InitializeResult$/);
    expect(verdicts[3].schemaRef).toMatch(/2025-03-26\/schema.json#\/definitions\/PingRequest$/);
  });

  it('on HTTP, takes the version of a message without a negotiation from its request\'s MCP-Protocol-Version header, and 2025-03-26 without one', () => {
    const checker = () => mcp.createChecker({ registry: bareRegistry(), secrets: new SecretTracker(), channel: { transport: 'http', path: '/mcp' } });
    const http = (headers: Record<string, string>) => ({ method: 'POST', path: '/mcp', requestHeaders: headers });
    const list = rpc(1, 'tools/list');
    const withHeader = checker().judge({ sender: 'client', carrier: 'body', value: list, http: http({ 'MCP-Protocol-Version': '2025-06-18' }) });
    expect(withHeader.schemaRef).toMatch(/2025-06-18\/schema.json#\/definitions\/ListToolsRequest$/);
    const without = checker().judge({ sender: 'client', carrier: 'body', value: list, http: http({}) });
    expect(without.schemaRef).toMatch(/2025-03-26\/schema.json#\/definitions\/ListToolsRequest$/);
    // Over stdio nothing says: unchecked until initialize.
    expect(judge([['client', list]]).verdicts[0]).toMatchObject({ status: 'invalid', reason: expect.stringContaining('no MCP version negotiated yet') });
  });

  it('judges a modern (2026-07-28) session, which has no initialize, by the version its requests name', () => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
    const lines: Line[] = [
      ['client', rpc('l-1', 'tools/list', { _meta: meta })],
      ['server', ok('l-1', { resultType: 'complete', tools: [TOOL], ttlMs: 60000, cacheScope: 'public' })],
      ['client', rpc('l-2', 'tools/list', { _meta: meta })],
      ['server', ok('l-2', { tools: 'none' })],
    ];
    const { verdicts, end } = judge(lines);
    expect(verdicts.map((v) => v.status)).toEqual(['valid', 'valid', 'valid', 'invalid']);
    // Its per-method response: the method's result, or an InputRequiredResult.
    expect(verdicts[1].schemaRef).toMatch(/2026-07-28\/schema.json#\/\$defs\/ListToolsResultResponse$/);
    expect(end).toEqual([]);
  });

  it('leaves a version with no shipped schema unchecked, saying so, and still runs the rules', () => {
    const lines: Line[] = [...opening('2024-11-05'), ['client', rpc(1, 'tools/list')], ['client', rpc(1, 'ping')]];
    const { verdicts } = judge(lines);
    expect(verdicts[3]).toMatchObject({ status: 'unchecked', reason: expect.stringContaining('MCP 2024-11-05 has no shipped schema') });
    expect(verdicts[4].findings.map((f) => f.rule)).toEqual(['jsonrpc-duplicate-request-id']);
  });
});

describe('MCP checker: stdio lines', () => {
  it('mcp-not-json-rpc: a log line or a JSON value that is no JSON-RPC message on stdout', () => {
    const checker = mcp.createChecker({ registry: bareRegistry(), secrets: new SecretTracker(), channel: { transport: 'stdio' } });
    const log = checker.judge({ sender: 'server', carrier: 'line', value: undefined, parseError: 'Unexpected token S', text: 'Server started' });
    expect(log.findings).toEqual([expect.objectContaining({ rule: 'mcp-not-json-rpc', severity: 'error', message: expect.stringContaining("a line on the server's stdout must be one JSON-RPC message") })]);
    expect(checker.judge({ sender: 'server', carrier: 'line', value: { level: 'info', msg: 'up' } }).findings.map((f) => f.rule)).toEqual(['mcp-not-json-rpc']);
    expect(rulesOf(opening())).toEqual([]);
  });
});

describe('MCP checker: lifecycle', () => {
  it('mcp-initialize-not-first: a session that starts with anything else', () => {
    expect(rulesOf([['client', rpc(1, 'tools/list')]], 'aborted')).toEqual(['#0 mcp-initialize-not-first', '#end jsonrpc-unanswered-request']);
    expect(rulesOf(opening())).toEqual([]);
  });

  it('mcp-initialize-repeated: a second initialize', () => {
    const again: Line = ['client', rpc(5, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } })];
    expect(rulesOf([...opening(), again, ['server', ok(5, { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } })]])).toEqual(['#3 mcp-initialize-repeated']);
  });

  it('mcp-request-before-initialized: the client before the InitializeResult, the server before notifications/initialized; ping is fine', () => {
    const [init, result, initialized] = opening();
    expect(rulesOf([init, ['client', rpc(1, 'tools/list')], result, ['server', ok(1, { tools: [] })], initialized])).toEqual(['#1 mcp-request-before-initialized']);
    expect(rulesOf([init, result, ['server', rpc(0, 'roots/list')], ['client', ok(0, { roots: [] })], initialized])).toEqual(['#2 mcp-request-before-initialized']);
    expect(rulesOf([init, ['client', rpc(1, 'ping')], ['server', ok(1)], result, ['server', rpc(0, 'ping')], ['client', ok(0)], initialized])).toEqual([]);
  });

  it('mcp-initialized-missing: the client ends without notifications/initialized (going on without it is a request before it)', () => {
    const [init, result] = opening();
    expect(rulesOf([init, result, ['client', rpc(1, 'tools/list')], ['server', ok(1, { tools: [] })]])).toEqual(['#2 mcp-request-before-initialized']);
    expect(rulesOf([init, result])).toEqual(['#end mcp-initialized-missing']);
    expect(rulesOf([...opening(), ['client', rpc(1, 'tools/list')], ['server', ok(1, { tools: [] })]])).toEqual([]);
  });
});

describe('MCP checker: JSON-RPC ids and responses', () => {
  it('mcp-null-request-id: a request with id null', () => {
    // The schema says so too (RequestId is a string or an integer), on the request and its response.
    expect(rulesOf([...opening(), ['client', rpc(null, 'ping')], ['server', ok(null)]])).toEqual(['#3 schema', '#3 mcp-null-request-id', '#4 schema']);
    expect(rulesOf([...opening(), ['client', rpc('a-1', 'ping')], ['server', ok('a-1')]])).toEqual([]);
  });

  it('mcp-request-id-reused: an id used again in the session, even after its answer; each side has its own ids', () => {
    const lines: Line[] = [...opening(), ['client', rpc(1, 'ping')], ['server', ok(1)], ['client', rpc(1, 'ping')], ['server', ok(1)]];
    expect(rulesOf(lines)).toEqual(['#5 mcp-request-id-reused']);
    expect(rulesOf([...opening(), ['client', rpc(1, 'ping')], ['server', ok(1)], ['server', rpc(1, 'ping')], ['client', ok(1)], ['client', rpc(2, 'ping')], ['server', ok(2)]])).toEqual([]);
  });

  it('shares JSON-RPC\'s correlation rules: a response answers an open request, once, with exactly one of result and error', () => {
    const lines: Line[] = [
      ...opening(),
      ['client', rpc(1, 'ping')],
      ['server', { jsonrpc: '2.0', id: 1, result: {}, error: { code: -1, message: 'x' } }],
      ['server', ok(1)],
      ['server', ok(9)],
    ];
    expect(rulesOf(lines)).toEqual(expect.arrayContaining(['#4 jsonrpc-result-and-error', '#5 jsonrpc-duplicate-response', '#6 jsonrpc-unknown-response-id']));
  });
});

describe('MCP checker: cancellation', () => {
  const call: Line = ['client', rpc(1, 'tools/call', { name: 'echo', arguments: {} })];

  it('mcp-cancel-unknown-request: a cancellation naming no request of its sender; one for an answered request is a race, not a finding', () => {
    expect(rulesOf([...opening(), call, ['client', note('notifications/cancelled', { requestId: 7 })], ['server', ok(1, { content: [] })]])).toEqual(['#4 mcp-cancel-unknown-request']);
    // The server cancelling the client's request: not its own.
    expect(rulesOf([...opening(), call, ['server', note('notifications/cancelled', { requestId: 1 })], ['server', ok(1, { content: [] })]])).toEqual(['#4 mcp-cancel-unknown-request']);
    expect(rulesOf([...opening(), call, ['client', note('notifications/cancelled', { requestId: 1, reason: 'user' })], ['server', ok(1, { content: [] })]])).toEqual([]);
    expect(rulesOf([...opening(), call, ['server', ok(1, { content: [] })], ['client', note('notifications/cancelled', { requestId: 1 })]])).toEqual([]);
  });

  it('a cancelled request need not be answered; another unanswered one is still reported at the end', () => {
    const other: Line = ['client', rpc(2, 'tools/call', { name: 'slow', arguments: {} })];
    expect(rulesOf([...opening(), call, other, ['client', note('notifications/cancelled', { requestId: 1 })]])).toEqual(['#end jsonrpc-unanswered-request']);
    expect(judge([...opening(), call, other, ['client', note('notifications/cancelled', { requestId: 1 })]]).end[0].message).toContain("request 2 ('tools/call')");
  });

  it('mcp-cancel-initialize: initialize is never cancelled', () => {
    const [init, result, initialized] = opening();
    expect(rulesOf([init, ['client', note('notifications/cancelled', { requestId: 0 })], result, initialized])).toEqual(['#1 mcp-cancel-initialize']);
  });
});

describe('MCP checker: progress', () => {
  const call = (id: number, token: unknown): Line => ['client', rpc(id, 'tools/call', { name: 'echo', arguments: {}, _meta: { progressToken: token } })];
  const progress = (token: unknown, value: number): Line => ['server', note('notifications/progress', { progressToken: token, progress: value, total: 3 })];
  const done = (id: number): Line => ['server', ok(id, { content: [] })];

  it('accepts increasing progress for an active token, and a token used again once its request is answered', () => {
    expect(rulesOf([...opening(), call(1, 't'), progress('t', 1), progress('t', 2.5), done(1), call(2, 't'), progress('t', 1), done(2)])).toEqual([]);
  });

  it('mcp-progress-not-increasing', () => {
    expect(rulesOf([...opening(), call(1, 't'), progress('t', 2), progress('t', 2), done(1)])).toEqual(['#5 mcp-progress-not-increasing']);
  });

  it('mcp-progress-after-response', () => {
    expect(rulesOf([...opening(), call(1, 't'), done(1), progress('t', 1)])).toEqual(['#5 mcp-progress-after-response']);
  });

  it('mcp-progress-unknown-token: a token no request of the other side carries (1 and "1" are two tokens)', () => {
    expect(rulesOf([...opening(), call(1, 1), progress('1', 1), done(1)])).toEqual(['#4 mcp-progress-unknown-token']);
  });

  it('mcp-progress-token-reused: a token of another active request of the same side', () => {
    expect(rulesOf([...opening(), call(1, 't'), call(2, 't'), done(1), done(2)])).toEqual(['#4 mcp-progress-token-reused']);
    // The two requests' progress cannot be told apart: reported once, at the reuse, not again at each notification.
    expect(rulesOf([...opening(), call(1, 't'), call(2, 't'), progress('t', 2), done(1), progress('t', 1), done(2)])).toEqual(['#4 mcp-progress-token-reused']);
  });
});

describe('MCP checker: capabilities', () => {
  it('mcp-capability-not-negotiated: each side\'s requests need the other\'s declared capability', () => {
    const cases: Array<[Sender, string, unknown, unknown, string]> = [
      ['client', 'tools/list', undefined, { prompts: {} }, 'tools'],
      ['client', 'prompts/get', { name: 'p' }, { tools: {} }, 'prompts'],
      ['client', 'resources/read', { uri: 'file:///a' }, { tools: {} }, 'resources'],
      ['client', 'resources/subscribe', { uri: 'file:///a' }, { resources: {} }, 'resources.subscribe'],
      ['client', 'logging/setLevel', { level: 'info' }, { tools: {} }, 'logging'],
      ['client', 'completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: 'b' } }, { prompts: {} }, 'completions'],
      ['client', 'tasks/list', undefined, { tasks: {} }, 'tasks.list'],
      ['server', 'sampling/createMessage', { messages: [], maxTokens: 1 }, SERVER_CAPS, 'sampling'],
      ['server', 'roots/list', undefined, SERVER_CAPS, 'roots'],
      ['server', 'elicitation/create', { message: 'm', requestedSchema: { type: 'object', properties: {} } }, SERVER_CAPS, 'elicitation'],
    ];
    for (const [sender, method, params, serverCaps, missing] of cases) {
      const { verdicts } = judge([...opening('2025-11-25', {}, serverCaps), [sender, rpc(1, method, params)]], 'aborted');
      expect(verdicts[3].findings.filter((f) => f.rule !== 'schema').map((f) => [f.rule, f.message]), method).toEqual([
        ['mcp-capability-not-negotiated', expect.stringContaining(`'${missing}' capability`)],
      ]);
    }
  });

  it('accepts requests whose capability was declared', () => {
    const clientCaps = { sampling: {}, roots: {}, elicitation: {} };
    const lines: Line[] = [
      ...opening('2025-11-25', clientCaps),
      ['client', rpc(1, 'resources/subscribe', { uri: 'file:///a' })],
      ['server', ok(1)],
      ['client', rpc(2, 'logging/setLevel', { level: 'debug' })],
      ['server', ok(2)],
      ['server', rpc(0, 'sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 })],
      ['client', ok(0, { role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm' })],
      ['server', rpc(1, 'elicitation/create', { message: 'name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } })],
      ['client', ok(1, { action: 'accept', content: { name: 'n' } })],
    ];
    expect(rulesOf(lines)).toEqual([]);
  });
});

describe('MCP checker: direction', () => {
  it('mcp-wrong-direction: a method only the other side sends', () => {
    expect(rulesOf([...opening(), ['server', rpc(0, 'tools/list')], ['client', ok(0, { tools: [] })]])).toEqual(['#3 mcp-wrong-direction']);
    expect(rulesOf([...opening(), ['server', note('notifications/tools/list_changed')]])).toEqual([]);
  });
});

describe('MCP secrets', () => {
  it('stores the values of a tool call\'s secret-named arguments as <redacted>, and nothing else', () => {
    const secrets = new SecretTracker();
    const call = rpc(1, 'tools/call', { name: 'deploy', arguments: { apiToken: 't0k', target: 'prod', auth: { client_secret: 's', user: 'u' }, password_hint: 'no' } });
    expect(mcp.redactForStorage!({ sender: 'client', carrier: 'line', value: call }, secrets)).toEqual(
      rpc(1, 'tools/call', { name: 'deploy', arguments: { apiToken: '<redacted>', target: 'prod', auth: { client_secret: '<redacted>', user: 'u' }, password_hint: '<redacted>' } }),
    );
    expect(mcp.redactForStorage!({ sender: 'client', carrier: 'line', value: rpc(2, 'tools/call', { name: 'echo', arguments: { message: 'token' } }) }, secrets)).toBeUndefined();
    expect(mcp.redactForStorage!({ sender: 'server', carrier: 'line', value: ok(1, { content: [] }) }, secrets)).toBeUndefined();
  });

  it('keeps arguments that count tokens or page through a listing: they are no secret', () => {
    const secrets = new SecretTracker();
    const args = { maxTokens: 5, max_output_tokens: 100, tokenCount: 3, pageToken: 'p2', next_token: 'n', prompt: 'hi' };
    expect(mcp.redactForStorage!({ sender: 'client', carrier: 'line', value: rpc(1, 'tools/call', { name: 'sample', arguments: args }) }, secrets)).toBeUndefined();
    expect(mcp.redactForStorage!({ sender: 'client', carrier: 'line', value: rpc(2, 'tools/call', { name: 'login', arguments: { refresh_token: 'r', tokenSecret: 's' } }) }, secrets)).toEqual(
      rpc(2, 'tools/call', { name: 'login', arguments: { refresh_token: '<redacted>', tokenSecret: '<redacted>' } }),
    );
  });
});

describe('MCP checker: tools\' own contracts', () => {
  const WEATHER = {
    name: 'weather',
    inputSchema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } }, required: ['city'] },
    outputSchema: { type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'] },
  };
  /** The tool rules' findings of a session (requests left unanswered here are not the point). */
  const toolRules = (lines: readonly Line[]) => rulesOf(lines).filter((r) => r.includes(' mcp-tool-'));
  const listed = (...tools: unknown[]): Line[] => [['client', rpc(1, 'tools/list')], ['server', ok(1, { tools })]];
  const call = (id: number, name: string, args?: unknown): Line => ['client', rpc(id, 'tools/call', { name, ...(args === undefined ? {} : { arguments: args }) })];
  const structured = (id: number, structuredContent: unknown, isError = false): Line => ['server', ok(id, { content: [{ type: 'text', text: '…' }], structuredContent, ...(isError ? { isError } : {}) })];

  it('checks a call\'s arguments against the tool\'s inputSchema, and nothing in a call that fits', () => {
    const lines: Line[] = [...opening(), ...listed(WEATHER), call(2, 'weather', { city: 'Oslo', days: 0 }), call(3, 'weather', {}), call(4, 'weather', { city: 'Oslo', days: 3 })];
    const { verdicts } = judge(lines);
    expect(verdicts[5].findings.map((f) => [f.rule, f.severity, f.pointer])).toEqual([['mcp-tool-arguments-invalid', 'error', '/params/arguments/days']]);
    expect(verdicts[6].findings.map((f) => [f.rule, f.pointer, f.message])).toEqual([['mcp-tool-arguments-invalid', '/params/arguments', "the arguments of tool 'weather' break its inputSchema: missing required property 'city'"]]);
    expect(verdicts[7].findings).toEqual([]);
  });

  it('checks a result\'s structuredContent against the outputSchema, except an error result\'s', () => {
    const lines: Line[] = [
      ...opening(),
      ...listed(WEATHER),
      call(2, 'weather', { city: 'Oslo' }),
      structured(2, { celsius: 'warm' }),
      call(3, 'weather', { city: 'Oslo' }),
      structured(3, { celsius: 21.5 }),
      call(4, 'weather', { city: 'Atlantis' }),
      structured(4, { reason: 'no such city' }, true),
    ];
    expect(toolRules(lines)).toEqual(['#6 mcp-tool-structured-content-invalid']);
    expect(judge(lines).verdicts[6].findings[0].pointer).toBe('/result/structuredContent/celsius');
  });

  it('gathers every page of a listing, and says a tool is unknown only once a whole listing was seen and no list_changed came since', () => {
    const lines: Line[] = [
      ...opening(),
      ['client', rpc(1, 'tools/list')],
      ['server', ok(1, { tools: [TOOL], nextCursor: 'page-2' })],
      call(2, 'weather', { city: 1 }), // not listed yet, and the listing is not whole: nothing said
      ['client', rpc(3, 'tools/list', { cursor: 'page-2' })],
      ['server', ok(3, { tools: [WEATHER] })],
      call(4, 'weather', { city: 1 }), // the second page's tool is checked
      call(5, 'echo', { message: 'hi' }), // the first page's too
      call(6, 'forecast', {}),
      ['server', note('notifications/tools/list_changed')],
      call(7, 'forecast', {}),
    ];
    expect(toolRules(lines)).toEqual(['#8 mcp-tool-arguments-invalid', '#10 mcp-tool-unknown']);
  });

  it('says nothing of a call when the session saw no tools/list', () => {
    expect(toolRules([...opening(), call(1, 'anything', { x: 1 }), ['server', ok(1, { content: [], structuredContent: { y: 2 } })]])).toEqual([]);
  });

  it('takes an unusable schema for one warning on the listing, and checks nothing against it', () => {
    const tools = [
      { name: 'remote', inputSchema: { type: 'object', properties: { a: { $ref: 'https://example.com/a.json' } } } },
      { name: 'odd-dialect', inputSchema: { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' } },
      { name: 'invalid', inputSchema: { type: 'object', properties: { a: { type: 'strng' } } } },
      { name: 'deep', inputSchema: nested(200) },
      { name: 'bad-pattern', inputSchema: { type: 'object', properties: { a: { type: 'string', pattern: '(' } } } },
    ];
    const lines: Line[] = [...opening(), ...listed(...tools), ...tools.map((t, i) => call(10 + i, t.name, { a: 5 }))];
    const { verdicts } = judge(lines);
    expect(verdicts[4].findings.map((f) => [f.rule, f.severity, f.pointer])).toEqual(tools.map((_, i) => ['mcp-tool-schema-unchecked', 'warning', `/result/tools/${i}/inputSchema`]));
    expect(verdicts[4].findings[0].message).toMatch(/refers outside itself/);
    expect(verdicts[4].findings[1].message).toMatch(/draft-04/);
    expect(verdicts.slice(5).flatMap((v) => v.findings)).toEqual([]);
  });

  it('checks schemas of the draft-07 and 2019-09 dialects by their own rules', () => {
    const draft07 = { name: 'd7', inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { n: { type: 'integer' } }, dependencies: { n: ['m'] } } };
    const v2019 = { name: 'd19', inputSchema: { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object', properties: { n: { type: 'integer' } } } };
    const lines: Line[] = [...opening(), ...listed(draft07, v2019), call(2, 'd7', { n: 1 }), call(3, 'd7', { n: 1, m: 2 }), call(4, 'd19', { n: 'x' })];
    expect(toolRules(lines)).toEqual(['#5 mcp-tool-arguments-invalid', '#7 mcp-tool-arguments-invalid']);
  });

  it('does not take a value stored redacted for one that breaks the schema', () => {
    const tool = { name: 'login', inputSchema: { type: 'object', properties: { pinToken: { type: 'integer' } } } };
    expect(toolRules([...opening(), ...listed(tool), call(2, 'login', { pinToken: '<redacted>' })])).toEqual([]);
  });

  it('stops a pattern that backtracks without end, with a warning that the value was not checked', () => {
    const tool = { name: 'grep', inputSchema: { type: 'object', properties: { q: { type: 'string', pattern: '^(a+)+$' } } } };
    const lines: Line[] = [...opening(), ...listed(tool), call(2, 'grep', { q: 'aaaa' }), call(3, 'grep', { q: 'b' }), call(4, 'grep', { q: `${'a'.repeat(40)}!` })];
    const { verdicts } = judge(lines);
    expect(verdicts.slice(3).map((v) => v.findings.map((f) => `${f.rule} ${f.severity}`))).toEqual([[], [], [], ['mcp-tool-arguments-invalid error'], ['mcp-tool-schema-unchecked warning']]);
  });
});

/** A schema nested `depth` levels of `properties`. */
function nested(depth: number): unknown {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < depth; i++) schema = { type: 'object', properties: { a: schema } };
  return schema;
}
