/**
 * The anthropic checker: every message judged by its own definition of the Messages API schema, and
 * each stream and request rule (src/protocols/anthropic/rules.ts) catching its broken case and letting
 * the correct one by. The correct traffic is the stand-in upstream's (test/support/anthropic-scenario.ts).
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../../src/core/finding.js';
import type { HttpContext, InboundMessage } from '../../../src/core/message.js';
import type { Verdict } from '../../../src/core/verdict.js';
import { MessageJudge } from '../../../src/judge/message-judge.js';
import { SecretTracker } from '../../../src/judge/secret-tracker.js';
import { classifyChannel, protocolById, sniffMessage } from '../../../src/protocols/modules.js';
import { RecordingScope } from '../../../src/protocols/recording-scope.js';
import { ANTHROPIC_RULES as RULES } from '../../../src/protocols/anthropic/rules.js';
import { CLAUDE_MODEL, CLAUDE_WEATHER_TOOL, claudeError, claudeEvents, claudeMessage, claudeReply, claudeTokenCount } from '../../support/anthropic-scenario.js';
import { STANDIN_MODEL, WEATHER_TOOL } from '../../support/openai-scenario.js';
import { testRegistry } from '../../support/shared.js';
import { scratch } from '../../support/temp-dir.js';
import { useCleanups } from '../../support/cleanups.js';
import { readInput } from '../../../src/validate/read-input.js';
import { validateInput } from '../../../src/validate/validate-input.js';

type Json = Record<string, unknown>;
useCleanups();
const anthropic = protocolById('anthropic');

interface Judged {
  verdicts: Verdict[];
  end: Finding[];
  /** Every finding's rule and severity, `rule:severity`. */
  rules: string[];
}

/** One exchange through a fresh checker (and MessageJudge, as record judges it): the request, then the answer's messages. */
function exchange(path: string, request: Json, answers: Json[], options: { carrier?: 'event' | 'body'; status?: number } = {}): Judged {
  const secrets = new SecretTracker();
  const checker = anthropic.createChecker({ registry: testRegistry(), secrets, requestBody: request, channel: { transport: options.carrier === 'body' ? 'http' : 'sse', path }, scope: new RecordingScope() });
  const judge = new MessageJudge(checker, secrets);
  const http: HttpContext = { method: 'POST', path };
  const message = (sender: 'client' | 'server', value: Json, carrier: 'event' | 'body'): InboundMessage => ({ sender, carrier, value, text: JSON.stringify(value), http: sender === 'server' && options.status ? { ...http, status: options.status } : http });
  const verdicts = [judge.judge(message('client', request, 'body')), ...answers.map((answer) => judge.judge(message('server', answer, options.carrier ?? 'event')))];
  const end = judge.end('complete');
  const rules = [...verdicts.flatMap((v) => v.findings), ...end].map((f) => `${f.rule}:${f.severity}`);
  return { verdicts, end, rules };
}

const user = (content: unknown): Json => ({ role: 'user', content });
const request = (content: string, extra: Json = {}): Json => ({ model: CLAUDE_MODEL, max_tokens: 256, messages: [user(content)], tools: [CLAUDE_WEATHER_TOOL], stream: true, ...extra });
const toolRequest = request('What is the weather in Paris?');
const textRequest = request('Hi');
const thinkingRequest = request('Hi', { thinking: { type: 'enabled', budget_tokens: 1024 } });

/** A streamed answer to `body`, edited. */
function stream(body: Json, edit: (events: Json[]) => Json[] = (events) => events): Judged {
  return exchange('/v1/messages', body, edit(structuredClone(claudeEvents(body, claudeReply(body)))));
}

const indexOf = (events: Json[], test: (event: Json) => boolean) => events.findIndex(test);
const deltaOf = (event: Json): Json => event.delta as Json;

describe('the correct traffic of the stand-in upstream', () => {
  it('is valid, message by message, with no finding: streamed and not, with thinking and a tool call, ended by an error event, count_tokens, an error', () => {
    const cases: Judged[] = [
      stream(toolRequest),
      stream(textRequest),
      stream(thinkingRequest),
      stream(request('Hi MIDSTREAM')),
      stream(request('What is the weather?', { thinking: { type: 'enabled', budget_tokens: 1024 } })),
      exchange('/v1/messages', { ...textRequest, stream: false }, [claudeMessage(textRequest, claudeReply(textRequest))], { carrier: 'body' }),
      exchange('/v1/messages', { ...toolRequest, stream: false }, [claudeMessage(toolRequest, claudeReply(toolRequest))], { carrier: 'body' }),
      exchange('/v1/messages/count_tokens', { model: CLAUDE_MODEL, messages: [user('Hi')], system: 'Be brief.' }, [claudeTokenCount({ messages: [user('Hi')] })], { carrier: 'body' }),
      exchange('/v1/messages', request('OVERLOADED'), [claudeError('overloaded_error', 'Overloaded')], { carrier: 'body', status: 529 }),
    ];
    for (const judged of cases) {
      expect(judged.rules).toEqual([]);
      for (const verdict of judged.verdicts) expect(verdict.status).toBe('valid');
    }
    // Each message by its own definition, never a union.
    const refs = cases.flatMap((c) => c.verdicts.map((v) => v.schemaRef?.split('#/$defs/')[1]));
    expect(new Set(refs)).toEqual(new Set(['MessageCreateParams', 'MessageStartEvent', 'ContentBlockStartEvent', 'PingEvent', 'ContentBlockDeltaEvent', 'ContentBlockStopEvent', 'MessageDeltaEvent', 'MessageStopEvent', 'Message', 'MessageCountTokensParams', 'MessageTokensCount', 'ErrorResponse']));
  });

  it('takes server tools and toolsets, which may have no name, and thinking blocks sent back with their signature', () => {
    const tools = [CLAUDE_WEATHER_TOOL, { type: 'web_search_20250305', name: 'web_search', max_uses: 3 }, { type: 'computer_toolset_20260801' }];
    const thinking = { type: 'thinking', thinking: 'The user wants a short answer.', signature: 'sig' };
    const body = { ...textRequest, tools, messages: [user('Hi'), { role: 'assistant', content: [thinking, { type: 'text', text: 'Hello.' }] }, user('Again')] };
    expect(exchange('/v1/messages', body, []).verdicts[0]).toMatchObject({ status: 'valid' });
    const unsigned = { ...body, messages: [user('Hi'), { role: 'assistant', content: [{ ...thinking, signature: undefined }] }, user('Again')] };
    expect(exchange('/v1/messages', JSON.parse(JSON.stringify(unsigned)) as Json, []).verdicts[0]).toMatchObject({ status: 'invalid' });
    const nameless = { ...textRequest, tools: [{ input_schema: { type: 'object' } }] };
    expect(exchange('/v1/messages', nameless, []).verdicts[0]).toMatchObject({ status: 'invalid' });
  });

  it('takes fields the API may add (a new block type, a new delta, new usage counts) without a finding', () => {
    const judged = stream(textRequest, (events) => {
      const start = events[0].message as Json;
      Object.assign(start, { container: null, stop_details: null, diagnostics: null });
      Object.assign(start.usage as Json, { server_tool_use: { web_search_requests: 0 }, cache_creation: { ephemeral_5m_input_tokens: 0 }, speed: 'standard' });
      const serverBlock = { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] };
      const stop = events.findIndex((e) => e.type === 'message_delta');
      return [...events.slice(0, stop), { type: 'content_block_start', index: 1, content_block: serverBlock }, { type: 'content_block_delta', index: 1, delta: { type: 'future_delta', data: 1 } }, { type: 'content_block_stop', index: 1 }, ...events.slice(stop)];
    });
    expect(judged.rules).toEqual([]);
  });

  it('judges an event against its schema, with the pointer of what is wrong', () => {
    const judged = stream(textRequest, (events) => events.map((e) => (e.type === 'message_delta' ? { ...e, usage: { output_tokens: 'many' } } : e)));
    const verdict = judged.verdicts.find((v) => v.schemaRef?.endsWith('/MessageDeltaEvent'));
    expect(verdict).toMatchObject({ status: 'invalid', findings: [expect.objectContaining({ rule: 'schema', pointer: '/usage/output_tokens' })] });
    const noMax = exchange('/v1/messages', { model: CLAUDE_MODEL, messages: [user('Hi')] }, []);
    expect(noMax.verdicts[0]).toMatchObject({ status: 'invalid', findings: [expect.objectContaining({ rule: 'schema' })] });
  });
});

describe('stream rules', () => {
  it(`${RULES.startNotFirst}: message_start first, and once`, () => {
    expect(stream(textRequest, (e) => [e[1], e[0], ...e.slice(2)]).rules).toContain(`${RULES.startNotFirst}:error`);
    expect(stream(textRequest, (e) => [e[0], e[0], ...e.slice(1)]).rules).toEqual([`${RULES.startNotFirst}:error`]);
    // A ping before it is no event of the message.
    expect(stream(textRequest, (e) => [{ type: 'ping' }, ...e]).rules).toEqual([]);
  });

  it(`${RULES.eventAfterEnd} and ${RULES.stopMissing}: message_stop last, and there; an error event ends the stream`, () => {
    expect(stream(textRequest, (e) => [...e, e[e.length - 2]]).rules).toContain(`${RULES.eventAfterEnd}:error`);
    expect(stream(textRequest, (e) => [...e, { type: 'ping' }]).rules).toEqual([]);
    expect(stream(textRequest, (e) => e.slice(0, -1)).rules).toEqual([`${RULES.stopMissing}:error`]);
    const overloaded = claudeError('overloaded_error', 'Overloaded');
    expect(stream(textRequest, (e) => [...e.slice(0, 3), overloaded]).rules).toEqual([]);
    expect(stream(textRequest, (e) => [...e.slice(0, 3), overloaded, e[3]]).rules).toEqual([`${RULES.eventAfterEnd}:error`]);
  });

  it(`${RULES.blockOutOfOrder}: blocks start in index order, one at a time`, () => {
    const shifted = (e: Json[]) => e.map((event) => (typeof event.index === 'number' ? { ...event, index: event.index + 1 } : event));
    expect(stream(textRequest, shifted).rules).toEqual([`${RULES.blockOutOfOrder}:error`]);
    // The tool_use block starts before the text block stops.
    const overlapping = (e: Json[]) => {
      const stop = indexOf(e, (x) => x.type === 'content_block_stop' && x.index === 0);
      const toolStart = indexOf(e, (x) => x.type === 'content_block_start' && x.index === 1);
      return [...e.slice(0, stop), e[toolStart], e[stop], ...e.slice(toolStart + 1)];
    };
    expect(stream(toolRequest, overlapping).rules).toEqual([`${RULES.blockOutOfOrder}:error`]);
  });

  it(`${RULES.blockNotOpen} and ${RULES.blockNotStopped}: deltas and stops only for an open block; every block stops`, () => {
    const deltaAfterStop = (e: Json[]) => {
      const stop = indexOf(e, (x) => x.type === 'content_block_stop');
      return [...e.slice(0, stop + 1), e[stop - 1], ...e.slice(stop + 1)];
    };
    expect(stream(textRequest, deltaAfterStop).rules).toEqual([`${RULES.blockNotOpen}:error`]);
    expect(stream(textRequest, (e) => [...e.slice(0, 3), { type: 'content_block_delta', index: 4, delta: { type: 'text_delta', text: 'x' } }, ...e.slice(3)]).rules).toEqual([`${RULES.blockNotOpen}:error`]);
    expect(stream(textRequest, (e) => e.filter((x) => x.type !== 'content_block_stop')).rules).toEqual([`${RULES.blockNotStopped}:error`]);
  });

  it(`${RULES.deltaTypeMismatch}: the delta type fits the block`, () => {
    const textAsJson = (e: Json[]) => e.map((x) => (x.type === 'content_block_delta' && deltaOf(x).type === 'text_delta' ? { ...x, delta: { type: 'input_json_delta', partial_json: String(deltaOf(x).text) } } : x));
    expect(stream(textRequest, textAsJson).rules).toEqual(Array(claudeReply(textRequest).pieces.length).fill(`${RULES.deltaTypeMismatch}:error`));
    const jsonAsText = (e: Json[]) => e.map((x) => (x.type === 'content_block_delta' && deltaOf(x).type === 'input_json_delta' && deltaOf(x).partial_json === '' ? { ...x, delta: { type: 'text_delta', text: '' } } : x));
    expect(stream(toolRequest, jsonAsText).rules).toEqual([`${RULES.deltaTypeMismatch}:error`]);
    // In the thinking answer, block 1 is the text: a thinking or signature delta does not fit it.
    const intoText = (delta: Json) => (e: Json[]) => {
      const stop = indexOf(e, (x) => x.type === 'content_block_stop' && x.index === 1);
      return [...e.slice(0, stop), { type: 'content_block_delta', index: 1, delta }, ...e.slice(stop)];
    };
    expect(stream(thinkingRequest, intoText({ type: 'thinking_delta', thinking: 'hm' })).rules).toEqual([`${RULES.deltaTypeMismatch}:error`]);
    expect(stream(thinkingRequest, intoText({ type: 'signature_delta', signature: 'sig' })).rules).toEqual([`${RULES.deltaTypeMismatch}:error`]);
  });

  it(`${RULES.toolInputNotJson}: a tool_use block's partial_json that does not concatenate to JSON (a warning)`, () => {
    const dropFragment = (e: Json[]) => e.filter((x) => !(x.type === 'content_block_delta' && deltaOf(x).partial_json === 'ty": "Pa'));
    expect(stream(toolRequest, dropFragment).rules).toEqual([`${RULES.toolInputNotJson}:warning`]);
  });

  it(`${RULES.stopReasonMissing} and ${RULES.stopReasonMismatch}: a message_delta's stop_reason, fitting the blocks`, () => {
    expect(stream(textRequest, (e) => e.filter((x) => x.type !== 'message_delta')).rules).toEqual([`${RULES.stopReasonMissing}:error`]);
    const reason = (value: string) => (e: Json[]) => e.map((x) => (x.type === 'message_delta' ? { ...x, delta: { ...deltaOf(x), stop_reason: value } } : x));
    expect(stream(textRequest, reason('tool_use')).rules).toEqual([`${RULES.stopReasonMismatch}:error`]);
    expect(stream(toolRequest, reason('end_turn')).rules).toEqual([`${RULES.stopReasonMismatch}:warning`]);
    // Cut short by max_tokens mid tool call: no contradiction.
    expect(stream(toolRequest, reason('max_tokens')).rules).toEqual([]);
    // A plain answer is held to the same.
    const message = claudeMessage(textRequest, claudeReply(textRequest));
    expect(exchange('/v1/messages', { ...textRequest, stream: false }, [{ ...message, stop_reason: 'tool_use' }], { carrier: 'body' }).rules).toEqual([`${RULES.stopReasonMismatch}:error`]);
  });

  it(`${RULES.usageDecreasing}: cumulative output_tokens never go down`, () => {
    const lower = (e: Json[]) => e.map((x) => (x.type === 'message_delta' ? { ...x, usage: { output_tokens: 0 } } : x));
    expect(stream(textRequest, lower).rules).toEqual([`${RULES.usageDecreasing}:warning`]);
    const twice = (e: Json[]) => {
      const at = indexOf(e, (x) => x.type === 'message_delta');
      return [...e.slice(0, at), { ...e[at], usage: { output_tokens: 2 } }, ...e.slice(at)];
    };
    expect(stream(textRequest, twice).rules).toEqual([]);
  });
});

describe('request rules', () => {
  const toolUse = { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } };
  const answered = (id: string, assistant: unknown[] = [toolUse]): Json => ({
    model: CLAUDE_MODEL,
    max_tokens: 256,
    tools: [CLAUDE_WEATHER_TOOL],
    messages: [user('What is the weather in Paris?'), { role: 'assistant', content: assistant }, user([{ type: 'tool_result', tool_use_id: id, content: 'sunny' }])],
  });

  it(`${RULES.toolResultUnknownId}: a tool_result for a tool_use the assistant turn before never made`, () => {
    expect(exchange('/v1/messages', answered('toolu_1'), []).rules).toEqual([]);
    const unknown = exchange('/v1/messages', answered('toolu_9'), []);
    expect(unknown.rules).toEqual([`${RULES.toolResultUnknownId}:error`]);
    expect(unknown.verdicts[0].findings[0].pointer).toBe('/messages/2/content/0/tool_use_id');
    expect(exchange('/v1/messages', answered('toolu_1', [{ type: 'text', text: 'Let me see.' }]), []).rules).toEqual([`${RULES.toolResultUnknownId}:error`]);
    // Consecutive user messages are one turn: the tool_use is still the turn before.
    const split = answered('toolu_1');
    (split.messages as Json[]).splice(2, 0, user('Here is the result.'));
    expect(exchange('/v1/messages', split, []).rules).toEqual([]);
    // count_tokens refuses it alike.
    expect(exchange('/v1/messages/count_tokens', answered('toolu_9'), []).rules).toEqual([`${RULES.toolResultUnknownId}:error`]);
  });

  it(`${RULES.toolChoiceUnknownTool}: a tool_choice naming a tool not offered`, () => {
    const named = (name: string): Json => ({ ...textRequest, tool_choice: { type: 'tool', name } });
    expect(exchange('/v1/messages', named('get_weather'), []).rules).toEqual([]);
    const unknown = exchange('/v1/messages', named('get_time'), []);
    expect(unknown.rules).toEqual([`${RULES.toolChoiceUnknownTool}:error`]);
    expect(unknown.verdicts[0].findings[0].pointer).toBe('/tool_choice/name');
    expect(exchange('/v1/messages', { ...textRequest, tool_choice: { type: 'any' } }, []).rules).toEqual([]);
  });
});

describe('recognition', () => {
  const post = (path: string, requestBody: unknown, transport: 'http' | 'sse' = 'sse') => ({ transport, method: 'POST', path, requestBody, contentType: transport === 'sse' ? 'text/event-stream' : 'application/json' });

  it('claims the Messages routes at /v1 and under a gateway mount, by route, method and body', () => {
    for (const hint of [post('/v1/messages', textRequest), post('/anthropic/v1/messages', textRequest), post('/v1/messages/count_tokens', { model: 'm', messages: [] }, 'http'), { transport: 'http' as const, method: 'POST', path: '/v1/messages' }]) {
      expect(classifyChannel(hint)?.id, JSON.stringify(hint)).toBe('anthropic');
    }
    // Not a GET, not another body's shape elsewhere, not a Pi daemon route.
    expect(classifyChannel({ transport: 'http', method: 'GET', path: '/v1/messages' })).toBeUndefined();
    expect(classifyChannel(post('/api/messages', { threadId: 't' }, 'http'))).toBeUndefined();
    expect(classifyChannel({ transport: 'http', method: 'GET', path: '/v1/capabilities' })?.id).toBe('pi-rest');
    expect(classifyChannel(post('/v1/chat/completions', { model: 'm', max_tokens: 5, messages: [user('Hi')] }))?.id).toBe('openai');
  });

  it('tells a lone Messages request from an OpenAI chat request, both ways', () => {
    const messages = [user('Hi')];
    const cases: Array<[Json, string]> = [
      // The known wrong guess: a lone {model, max_tokens, messages} is the Messages API's (max_tokens is required there, deprecated in OpenAI's).
      [{ model: CLAUDE_MODEL, max_tokens: 64, messages }, 'anthropic'],
      [{ model: CLAUDE_MODEL, max_tokens: 64, system: 'Be brief.', messages }, 'anthropic'],
      [{ model: CLAUDE_MODEL, max_tokens: 64, messages, tools: [CLAUDE_WEATHER_TOOL], tool_choice: { type: 'any' } }, 'anthropic'],
      [{ model: CLAUDE_MODEL, max_tokens: 64, messages: [user('Hi'), { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'n', input: {} }] }] }, 'anthropic'],
      [{ model: STANDIN_MODEL, messages }, 'openai'],
      [{ model: STANDIN_MODEL, max_tokens: 64, messages: [{ role: 'system', content: 'Be brief.' }, user('Hi')] }, 'openai'],
      [{ model: STANDIN_MODEL, max_tokens: 64, messages: [{ role: 'developer', content: 'Be brief.' }, user('Hi')] }, 'openai'],
      [{ model: STANDIN_MODEL, max_tokens: 64, messages, tools: [WEATHER_TOOL] }, 'openai'],
      [{ model: STANDIN_MODEL, max_tokens: 64, messages: [{ role: 'tool', tool_call_id: 'c', content: 'x' }] }, 'openai'],
      [{ model: STANDIN_MODEL, max_tokens: 64, messages, stream_options: { include_usage: true } }, 'openai'],
      [{ model: STANDIN_MODEL, messages: [user([{ type: 'image_url', image_url: { url: 'https://x' } }])] }, 'openai'],
    ];
    for (const [body, id] of cases) expect(sniffMessage(body)?.id, JSON.stringify(body)).toBe(id);
    expect(anthropic.messageEvidence({ model: 'm', max_tokens: 1, system: 's', messages })).toBe('Anthropic Messages request (model, messages, top-level system)');
  });

  it("sniffs its answers and events, and leaves Pi's message_start to Pi", () => {
    const events = claudeEvents(toolRequest, claudeReply(toolRequest));
    for (const value of [claudeMessage(textRequest, claudeReply(textRequest)), ...events.filter((e) => e.type !== 'ping'), claudeError('overloaded_error', 'Overloaded')]) {
      expect(sniffMessage(value)?.id, JSON.stringify(value)).toBe('anthropic');
    }
    expect(sniffMessage({ type: 'message_start', message: { role: 'assistant', content: [], timestamp: 1 } })?.id).toBe('pi-rpc');
  });
});

describe('validate of a captured stream (an .sse file)', () => {
  const capture = (events: Json[]) => events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join('');

  it('recognises it by its events and finds what is broken', () => {
    const dir = scratch();
    const good = dir.file('good.sse');
    writeFileSync(good, capture(claudeEvents(toolRequest, claudeReply(toolRequest))));
    const report = validateInput(readInput(good), testRegistry());
    expect({ protocols: report.protocols, summary: report.summary }).toMatchObject({ protocols: ['anthropic'], summary: { invalid: 0, errors: 0, warnings: 0 } });

    const broken = dir.file('broken.sse');
    const events = claudeEvents(toolRequest, claudeReply(toolRequest));
    writeFileSync(broken, capture([...events, events[1]]));
    const findings = validateInput(readInput(broken), testRegistry()).messages.flatMap((m) => m.verdict.findings.map((f) => f.rule));
    expect(findings).toContain(RULES.eventAfterEnd);
  });
});
