/**
 * The openai checker: every message judged by its own definition of the derived OpenAI schema, and
 * each stream and request rule (src/protocols/openai/rules.ts) catching its broken case and letting
 * the correct one by. The correct traffic is the stand-in upstream's (test/support/openai-scenario.ts).
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
import { OPENAI_RULES as RULES } from '../../../src/protocols/openai/rules.js';
import { chatChunks, chatCompletion, chatReply, embeddingList, errorBody, modelList, responseEvents, responseObject, responsesReply, STANDIN_MODEL, WEATHER_TOOL } from '../../support/openai-scenario.js';
import { testRegistry } from '../../support/shared.js';
import { scratch } from '../../support/temp-dir.js';
import { useCleanups } from '../../support/cleanups.js';
import { readInput } from '../../../src/validate/read-input.js';
import { validateInput } from '../../../src/validate/validate-input.js';

type Json = Record<string, unknown>;
useCleanups();
const DONE = '[DONE]';
const openai = protocolById('openai');

interface Judged {
  verdicts: Verdict[];
  end: Finding[];
  /** Every finding's rule and severity, `rule:severity`. */
  rules: string[];
}

/** One exchange through a fresh checker (and MessageJudge, as record judges it): the request, then the answer's messages. */
function exchange(path: string, request: Json | undefined, answers: Array<Json | typeof DONE>, options: { carrier?: 'event' | 'body'; status?: number; scope?: RecordingScope } = {}): Judged {
  const secrets = new SecretTracker();
  const method = request === undefined ? 'GET' : 'POST';
  const checker = openai.createChecker({ registry: testRegistry(), secrets, requestBody: request, channel: { transport: options.carrier === 'body' ? 'http' : 'sse', path }, scope: options.scope ?? new RecordingScope() });
  const judge = new MessageJudge(checker, secrets);
  const http: HttpContext = { method, path };
  const verdicts: Verdict[] = [];
  const message = (sender: 'client' | 'server', value: Json | typeof DONE, carrier: 'event' | 'body'): InboundMessage =>
    value === DONE ? { sender, carrier, value: undefined, text: DONE, parseError: 'not JSON', http } : { sender, carrier, value, text: JSON.stringify(value), http: sender === 'server' && options.status ? { ...http, status: options.status } : http };
  if (request !== undefined) verdicts.push(judge.judge(message('client', request, 'body')));
  for (const answer of answers) verdicts.push(judge.judge(message('server', answer, options.carrier ?? 'event')));
  const end = judge.end('complete');
  const rules = [...verdicts.flatMap((v) => v.findings), ...end].map((f) => `${f.rule}:${f.severity}`);
  return { verdicts, end, rules };
}

const chatRequest = (content: string, extra: Json = {}): Json => ({ model: STANDIN_MODEL, messages: [{ role: 'user', content }], tools: [WEATHER_TOOL], stream: true, ...extra });
const toolRequest = chatRequest('What is the weather in Paris?', { stream_options: { include_usage: true } });
const textRequest = chatRequest('Hi');

function chat(request: Json, edit: (chunks: Json[]) => Array<Json | typeof DONE> = (chunks) => [...chunks, DONE]): Judged {
  return exchange('/v1/chat/completions', request, edit(structuredClone(chatChunks(request, chatReply(request)))));
}

/** The delta of a chunk's first choice. */
const delta = (chunk: Json): Json => ((chunk.choices as Json[])[0].delta as Json);
const choice = (chunk: Json): Json => (chunk.choices as Json[])[0];
const toolFragment = (chunk: Json): Json => (delta(chunk).tool_calls as Json[])[0];

describe('the correct traffic of the stand-in upstream', () => {
  it('is valid, message by message, with no finding: chat streamed and not, Responses streamed and not, embeddings, models, an error', () => {
    const responsesRequest = { model: STANDIN_MODEL, input: 'What is the weather in Paris?', tools: [{ type: 'function', name: 'get_weather', parameters: WEATHER_TOOL.function.parameters, strict: true }], stream: true };
    const textResponses = { model: STANDIN_MODEL, input: 'Hi', stream: true };
    const cases: Judged[] = [
      chat(toolRequest),
      chat(textRequest),
      exchange('/v1/chat/completions', { ...textRequest, stream: false }, [chatCompletion(textRequest, chatReply(textRequest))], { carrier: 'body' }),
      exchange('/v1/chat/completions', { ...toolRequest, stream: false }, [chatCompletion(toolRequest, chatReply(toolRequest))], { carrier: 'body' }),
      exchange('/v1/responses', responsesRequest, responseEvents(responsesRequest, responsesReply(responsesRequest))),
      exchange('/v1/responses', textResponses, responseEvents(textResponses, responsesReply(textResponses))),
      exchange('/v1/responses', { ...textResponses, stream: false }, [responseObject(textResponses, responsesReply(textResponses))], { carrier: 'body' }),
      exchange('/v1/embeddings', { model: 'text-embedding-3-small', input: ['a', 'b'] }, [embeddingList({ input: ['a', 'b'] })], { carrier: 'body' }),
      exchange('/v1/models', undefined, [modelList()], { carrier: 'body' }),
      exchange('/v1/chat/completions', chatRequest('RATE LIMIT'), [errorBody('Rate limit reached', 'requests', 'rate_limit_exceeded')], { carrier: 'body', status: 429 }),
    ];
    for (const judged of cases) {
      expect(judged.rules).toEqual([]);
      for (const verdict of judged.verdicts) expect(verdict.status).toBe('valid');
    }
    // Each message by its own definition, never the union.
    const refs = cases.flatMap((c) => c.verdicts.map((v) => v.schemaRef?.split('#/$defs/')[1]));
    expect(new Set(refs)).toEqual(new Set([undefined, 'CreateChatCompletionRequest', 'CreateChatCompletionStreamResponse', 'CreateChatCompletionResponse', 'CreateResponse', 'ResponseCreatedEvent', 'ResponseInProgressEvent', 'ResponseOutputItemAddedEvent', 'ResponseFunctionCallArgumentsDeltaEvent', 'ResponseFunctionCallArgumentsDoneEvent', 'ResponseOutputItemDoneEvent', 'ResponseCompletedEvent', 'ResponseContentPartAddedEvent', 'ResponseTextDeltaEvent', 'ResponseTextDoneEvent', 'ResponseContentPartDoneEvent', 'Response', 'CreateEmbeddingRequest', 'CreateEmbeddingResponse', 'ListModelsResponse', 'ErrorResponse']));
  });

  it('judges a chunk against the chunk schema, with the pointer of what is wrong', () => {
    const judged = chat(textRequest, (chunks) => [{ ...chunks[0], choices: 'none' }, ...chunks.slice(1), DONE]);
    expect(judged.verdicts[1]).toMatchObject({ status: 'invalid', findings: [expect.objectContaining({ rule: 'schema', pointer: '/choices' })] });
  });
});

describe('chat completion stream rules', () => {
  it(`${RULES.chunkIdChanged}: a chunk with another id`, () => {
    expect(chat(textRequest, (c) => [c[0], { ...c[1], id: 'chatcmpl-other' }, ...c.slice(2), DONE]).rules).toEqual([`${RULES.chunkIdChanged}:error`]);
    // Azure's prompt filter chunk comes first, with an empty id.
    expect(chat(textRequest, (c) => [{ ...c[0], id: '', choices: [] }, ...c, DONE]).rules).toEqual([]);
  });

  it(`${RULES.finishReasonRepeated} and ${RULES.contentAfterFinish}: a choice going on after its finish_reason`, () => {
    const last = (c: Json[]) => c[c.length - 1];
    expect(chat(textRequest, (c) => [...c, last(c), DONE]).rules).toEqual([`${RULES.finishReasonRepeated}:error`]);
    const more = (c: Json[]) => ({ ...c[1], choices: [{ ...choice(c[1]), delta: { content: 'more' } }] });
    expect(chat(textRequest, (c) => [...c, more(c), DONE]).rules).toEqual([`${RULES.contentAfterFinish}:error`]);
  });

  it(`${RULES.finishReasonMissing} and ${RULES.roleMissing}: what finalChatCompletion() throws on`, () => {
    expect(chat(textRequest, (c) => [...c.slice(0, -1), DONE]).rules).toEqual([`${RULES.finishReasonMissing}:error`]);
    expect(
      chat(textRequest, (c) => {
        delete delta(c[0]).role;
        return [...c, DONE];
      }).rules,
    ).toEqual([`${RULES.roleMissing}:error`]);
  });

  it(`${RULES.toolCallIncomplete}: a tool call's first fragment without its id`, () => {
    const judged = chat(toolRequest, (c) => {
      delete toolFragment(c[0]).id;
      return [...c, DONE];
    });
    expect(judged.rules).toEqual([`${RULES.toolCallIncomplete}:error`]);
  });

  it(`${RULES.toolCallIdentityChanged}: a later fragment with another id or name`, () => {
    const judged = chat(toolRequest, (c) => {
      Object.assign(toolFragment(c[2]), { id: 'call_other', function: { name: 'get_time', arguments: 'ty":"Pa' } });
      return [...c, DONE];
    });
    expect(judged.rules).toEqual([`${RULES.toolCallIdentityChanged}:error`]);
  });

  it(`${RULES.toolArgumentsNotJson}: arguments that do not concatenate to JSON (a warning)`, () => {
    const judged = chat(toolRequest, (c) => [c[0], c[1], c[2], ...c.slice(4), DONE]);
    expect(judged.rules).toEqual([`${RULES.toolArgumentsNotJson}:warning`]);
  });

  it(`${RULES.finishReasonToolCalls}: tool calls ending with stop, unless tool_choice named the function`, () => {
    const stop = (c: Json[]) => c.map((chunk) => (choice(chunk)?.finish_reason === 'tool_calls' ? { ...chunk, choices: [{ ...choice(chunk), finish_reason: 'stop' }] } : chunk));
    expect(chat(toolRequest, (c) => [...stop(c), DONE]).rules).toEqual([`${RULES.finishReasonToolCalls}:warning`]);
    const named = { ...toolRequest, tool_choice: { type: 'function', function: { name: 'get_weather' } } };
    expect(chat(named, (c) => [...stop(c), DONE]).rules).toEqual([]);
    const textAsTools = (c: Json[]) => c.map((chunk) => (choice(chunk)?.finish_reason === 'stop' ? { ...chunk, choices: [{ ...choice(chunk), finish_reason: 'tool_calls' }] } : chunk));
    expect(chat(textRequest, (c) => [...textAsTools(c), DONE]).rules).toEqual([`${RULES.finishReasonToolCalls}:warning`]);
  });

  it(`${RULES.usageNotLast} and ${RULES.usageMissing}: usage on the last chunk only, when asked for`, () => {
    const usage = (c: Json[]) => c[c.length - 1];
    expect(chat(toolRequest, (c) => [...c.slice(0, -2), usage(c), c[c.length - 2], DONE]).rules).toEqual([`${RULES.usageNotLast}:error`]);
    expect(chat(toolRequest, (c) => [...c.slice(0, -1), DONE]).rules).toEqual([`${RULES.usageMissing}:warning`]);
  });

  it(`${RULES.usageNotLast}: usage on chunks with choices (vLLM's running counts) ends nothing; a chunk after the usage chunk still does`, () => {
    const running = (c: Json[]) => c.map((chunk, i) => (i < c.length - 1 ? { ...chunk, usage: { prompt_tokens: 9, completion_tokens: i, total_tokens: 9 + i } } : chunk));
    expect(chat(toolRequest, (c) => [...running(c), DONE]).rules).toEqual([]);
    expect(chat(toolRequest, (c) => [...running(c).slice(0, -2), c[c.length - 1], c[c.length - 2], DONE]).rules).toEqual([`${RULES.usageNotLast}:error`]);
  });

  it(`${RULES.compatibleDrift}: what compatible servers send and the SDK accepts is a warning, what it would not stays a schema error`, () => {
    const finishAs = (reason: unknown) => (c: Json[]): Array<Json | typeof DONE> => [...c.map((chunk) => (choice(chunk)?.finish_reason === 'stop' ? { ...chunk, choices: [{ ...choice(chunk), finish_reason: reason }] } : chunk)), DONE];
    expect(chat(textRequest, finishAs('eos_token')).rules).toEqual([`${RULES.compatibleDrift}:warning`]);
    expect(chat(textRequest, finishAs(42)).rules).toContain('schema:error');
    const error = (body: Json) => exchange('/v1/chat/completions', { ...textRequest, stream: false }, [body], { carrier: 'body', status: 400 }).rules;
    expect(error({ error: { message: 'too long', type: 'BadRequestError', param: null, code: 400 } })).toEqual([`${RULES.compatibleDrift}:warning`]);
    expect(error({ object: 'error', message: 'too long', type: 'BadRequestError', param: null, code: 400 })).toEqual([`${RULES.compatibleDrift}:warning`]);
    expect(error({ error: { message: 'too long', type: 'BadRequestError', param: null, code: true } })).toContain('schema:error');
    expect(error({ detail: 'too long' })).toContain('schema:error');
    expect(error({ error: 'Input validation error', error_type: 'validation' })).toEqual([`${RULES.compatibleDrift}:warning`]);
    expect(error({ error: 42 })).toContain('schema:error');
  });

  it(`${RULES.compatibleDrift}: a field left out or null where real servers do so is one warning per exchange; a wrong value stays a schema error`, () => {
    const plainRequest = { ...textRequest, stream: false };
    const plain = (edit: (body: Json) => void) => {
      const body = structuredClone(chatCompletion(plainRequest, chatReply(plainRequest)));
      edit(body);
      return exchange('/v1/chat/completions', plainRequest, [body], { carrier: 'body' }).rules;
    };
    const firstChoice = (body: Json) => (body.choices as Json[])[0];
    // Ollama's and LiteLLM's answers: no logprobs, no refusal, a null system_fingerprint; vLLM's null token details.
    expect(plain((b) => {
      delete firstChoice(b).logprobs;
      delete (firstChoice(b).message as Json).refusal;
      b.system_fingerprint = null;
      b.usage = { ...(b.usage as Json), prompt_tokens_details: null };
    })).toEqual(Array(4).fill(`${RULES.compatibleDrift}:warning`));
    expect(plain((b) => void (b.system_fingerprint = 7))).toEqual(['schema:error']);
    expect(plain((b) => void delete firstChoice(b).index)).toEqual(['schema:error']);
    expect(plain((b) => void ((firstChoice(b).message as Json).tool_calls = 'none'))).toEqual(['schema:error']);
    // vLLM 0.9's and LiteLLM's chunks without finish_reason until the last: one warning for the whole stream.
    const unfinished = chat(textRequest, (c) => [...c.map((chunk) => (choice(chunk)?.finish_reason === null ? { ...chunk, choices: [Object.fromEntries(Object.entries(choice(chunk)!).filter(([k]) => k !== 'finish_reason'))] } : chunk)), DONE]);
    expect(unfinished.rules).toEqual([`${RULES.compatibleDrift}:warning`]);
    // TGI's later tool call fragments with a null name; a name that is a number is no drift.
    const nameAs = (name: unknown) => (c: Json[]): Array<Json | typeof DONE> => {
      const fragments = c.filter((chunk) => Array.isArray(choice(chunk)?.delta && delta(chunk).tool_calls));
      for (const chunk of fragments.slice(1)) toolFragment(chunk).function = { ...(toolFragment(chunk).function as Json), name };
      return [...c, DONE];
    };
    expect(chat(toolRequest, nameAs(null)).rules).toEqual([`${RULES.compatibleDrift}:warning`]);
    expect(chat(toolRequest, nameAs(5)).rules).toContain('schema:error');
  });

  it(`${RULES.dataAfterDone} and ${RULES.doneMissing}: [DONE] is last, and there`, () => {
    expect(chat(textRequest, (c) => [...c.slice(0, -1), DONE, c[c.length - 1]]).rules).toContain(`${RULES.dataAfterDone}:error`);
    expect(chat(textRequest, (c) => [...c, DONE, DONE]).rules).toEqual([`${RULES.dataAfterDone}:error`]);
    expect(chat(textRequest, (c) => c).rules).toEqual([`${RULES.doneMissing}:warning`]);
  });

  it('a stream the server ends with an error object is judged as an error, with no rule about its missing end', () => {
    const judged = chat(textRequest, (c) => [c[0], errorBody('The server had an error', 'server_error', null)]);
    expect(judged.rules).toEqual([]);
    expect(judged.verdicts[2].schemaRef).toMatch(/#\/\$defs\/ErrorResponse$/);
  });
});

describe('request rules', () => {
  const answered = (id: string): Json[] => [
    { role: 'user', content: 'What is the weather in Paris?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
    { role: 'tool', tool_call_id: id, content: 'sunny' },
  ];

  it(`${RULES.toolResultUnknownCall}: a tool result for a call no earlier assistant message made (chat and Responses)`, () => {
    expect(exchange('/v1/chat/completions', { model: STANDIN_MODEL, messages: answered('call_1') }, []).rules).toEqual([]);
    const unknown = exchange('/v1/chat/completions', { model: STANDIN_MODEL, messages: answered('call_9') }, []);
    expect(unknown.rules).toEqual([`${RULES.toolResultUnknownCall}:error`]);
    expect(unknown.verdicts[0].findings[0].pointer).toBe('/messages/2/tool_call_id');
    const input = (id: string) => [{ role: 'user', content: 'Weather?' }, { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{}' }, { type: 'function_call_output', call_id: id, output: 'sunny' }];
    expect(exchange('/v1/responses', { model: STANDIN_MODEL, input: input('call_1') }, []).rules).toEqual([]);
    expect(exchange('/v1/responses', { model: STANDIN_MODEL, input: input('call_9') }, []).rules).toEqual([`${RULES.toolResultUnknownCall}:error`]);
    // With server-side state, the call is in the earlier response.
    expect(exchange('/v1/responses', { model: STANDIN_MODEL, previous_response_id: 'resp_1', input: input('call_9').slice(2) }, []).rules).toEqual([]);
  });

  it(`${RULES.toolCallIdNotFromAnswer}: echoing a recorded answer's tool calls with ids that answer never made`, () => {
    const scope = new RecordingScope();
    chat(toolRequest);
    const made = (chatChunks(toolRequest, chatReply(toolRequest))[0].choices as Json[])[0] as Json;
    const id = ((made.delta as Json).tool_calls as Json[])[0].id as string;
    exchange('/v1/chat/completions', toolRequest, [...chatChunks(toolRequest, chatReply(toolRequest)), DONE], { scope });
    const echo = (callId: string): Json => ({
      model: STANDIN_MODEL,
      messages: [
        { role: 'user', content: 'What is the weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [{ id: callId, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: callId, content: 'sunny' },
      ],
    });
    expect(exchange('/v1/chat/completions', echo(id), [], { scope }).rules).toEqual([]);
    expect(exchange('/v1/chat/completions', echo('call_forged'), [], { scope }).rules).toEqual([`${RULES.toolCallIdNotFromAnswer}:warning`]);
    // The model making the same call again (another answer, another id) keeps the first one's id good.
    const again = { ...toolRequest, messages: [...(toolRequest.messages as Json[]), { role: 'user', content: 'And the weather again?' }] };
    expect(chatReply(again).call?.id).not.toBe(id);
    exchange('/v1/chat/completions', again, [...chatChunks(again, chatReply(again)), DONE], { scope });
    expect(exchange('/v1/chat/completions', echo(id), [], { scope }).rules).toEqual([]);
    // Without an answer of the recording to compare with, history from before the recording says nothing.
    expect(exchange('/v1/chat/completions', echo('call_forged'), [], { scope: new RecordingScope() }).rules).toEqual([]);
  });

  it(`${RULES.toolChoiceUnknownTool}: a tool_choice naming a tool not offered (chat and Responses)`, () => {
    const named = (name: string): Json => ({ ...textRequest, tool_choice: { type: 'function', function: { name } } });
    expect(exchange('/v1/chat/completions', named('get_weather'), []).rules).toEqual([]);
    const unknown = exchange('/v1/chat/completions', named('get_time'), []);
    expect(unknown.rules).toEqual([`${RULES.toolChoiceUnknownTool}:error`]);
    expect(unknown.verdicts[0].findings[0].pointer).toBe('/tool_choice/function/name');
    const responses = (name: string): Json => ({ model: STANDIN_MODEL, input: 'Hi', tools: [{ type: 'function', name: 'get_weather', parameters: {}, strict: true }], tool_choice: { type: 'function', name } });
    expect(exchange('/v1/responses', responses('get_weather'), []).rules).toEqual([]);
    expect(exchange('/v1/responses', responses('get_time'), []).rules).toEqual([`${RULES.toolChoiceUnknownTool}:error`]);
  });
});

describe('Responses stream rules', () => {
  const request: Json = { model: STANDIN_MODEL, input: 'Hi', stream: true };
  const events = (): Json[] => structuredClone(responseEvents(request, responsesReply(request)));
  const judge = (list: Json[]) => exchange('/v1/responses', request, list).rules;
  const at = (list: Json[], type: string) => list.findIndex((e) => e.type === type);

  it(`${RULES.sequenceNotIncreasing}: a sequence number that does not rise`, () => {
    const list = events();
    list[3].sequence_number = 1;
    expect(judge(list)).toEqual([`${RULES.sequenceNotIncreasing}:error`]);
  });

  it(`${RULES.createdNotFirst}: a stream that does not begin with response.created`, () => {
    const list = events();
    expect(judge([list[1], list[0], ...list.slice(2)].map((e, i) => ({ ...e, sequence_number: i })))).toEqual([`${RULES.createdNotFirst}:error`]);
  });

  it(`${RULES.deltaBeforeAdded}: a delta for an item or content part not added before`, () => {
    const list = events();
    const withoutPart = list.filter((e) => e.type !== 'response.content_part.added');
    expect(judge(withoutPart)).toContain(`${RULES.deltaBeforeAdded}:error`);
    const delta = list[at(list, 'response.output_text.delta')];
    expect(judge([...list.slice(0, 2), { ...delta, item_id: 'msg_unknown', sequence_number: 2 }, ...list.slice(2).map((e) => ({ ...e, sequence_number: (e.sequence_number as number) + 1 }))])).toEqual([`${RULES.deltaBeforeAdded}:error`]);
  });

  it(`${RULES.doneDiffersFromDeltas}: a .done whose text is not its deltas'`, () => {
    const list = events();
    list[at(list, 'response.output_text.done')].text = 'Something else.';
    expect(judge(list)).toEqual([`${RULES.doneDiffersFromDeltas}:error`]);
  });

  it(`${RULES.terminalRepeated} and ${RULES.terminalMissing}: exactly one terminal event`, () => {
    const list = events();
    const completed = list[list.length - 1];
    expect(judge([...list, { ...completed, sequence_number: list.length }])).toEqual([`${RULES.terminalRepeated}:error`]);
    expect(judge(list.slice(0, -1))).toEqual([`${RULES.terminalMissing}:error`]);
  });

  it(`${RULES.completedWithoutUsage}: a completed response without usage (a warning)`, () => {
    const list = events();
    (list[list.length - 1].response as Json).usage = null;
    expect(judge(list)).toEqual([`${RULES.completedWithoutUsage}:warning`]);
  });
});

describe('recognition', () => {
  const post = (path: string, requestBody: unknown, transport: 'http' | 'sse' = 'sse') => ({ transport, method: 'POST', path, requestBody, contentType: transport === 'sse' ? 'text/event-stream' : 'application/json' });

  it('claims the OpenAI routes at /v1 and under a compatible mount, by route, method and body', () => {
    for (const hint of [post('/v1/chat/completions', textRequest), post('/api/v1/chat/completions', textRequest), post('/chat/completions', textRequest, 'http'), post('/v1/responses', { model: 'm', input: 'Hi' }), post('/v1/embeddings', { model: 'm', input: 'x' }, 'http'), { transport: 'http' as const, method: 'GET', path: '/v1/models' }]) {
      expect(classifyChannel(hint)?.id, JSON.stringify(hint)).toBe('openai');
    }
  });

  it('leaves the Pi daemon its /v1 routes, AG-UI its runs, and an event stream alone to nobody', () => {
    expect(classifyChannel({ transport: 'http', method: 'GET', path: '/v1/capabilities' })?.id).toBe('pi-rest');
    expect(classifyChannel({ transport: 'http', method: 'POST', path: '/v1/session', requestBody: { requestId: 'r', spec: { cwd: '/tmp' } } })?.id).toBe('pi-rest');
    expect(classifyChannel({ transport: 'sse', method: 'POST', path: '/agent', requestBody: { threadId: 't', runId: 'r', state: {}, messages: [], tools: [], context: [], forwardedProps: {} } })?.id).toBe('agui');
    expect(classifyChannel({ transport: 'sse', method: 'POST', path: '/v1/stream', contentType: 'text/event-stream' })).toBeUndefined();
    // A route of ours elsewhere needs its body's shape; GET /models elsewhere is anybody's.
    expect(classifyChannel(post('/chat/completions', { threadId: 't' }, 'http'))).toBeUndefined();
    expect(classifyChannel({ transport: 'http', method: 'GET', path: '/models' })).toBeUndefined();
    expect(classifyChannel({ transport: 'http', method: 'GET', path: '/v1/chat/completions' })).toBeUndefined();
  });

  it('sniffs a lone chat request as its own, and not an Anthropic Messages request', () => {
    expect(sniffMessage(textRequest)?.id).toBe('openai');
    expect(sniffMessage({ model: 'claude', max_tokens: 64, system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] })?.id).not.toBe('openai');
  });
});

describe('validate of a captured chat stream (an .sse file)', () => {
  const capture = (chunks: Array<Json | typeof DONE>) => chunks.map((c) => `data: ${c === DONE ? DONE : JSON.stringify(c)}\n\n`).join('');

  it('recognises it by its chunks, takes [DONE] as its end, and finds what is broken', () => {
    const dir = scratch();
    const good = dir.file('good.sse');
    writeFileSync(good, capture([...chatChunks(textRequest, chatReply(textRequest)), DONE]));
    const report = validateInput(readInput(good), testRegistry());
    expect({ protocols: report.protocols, summary: report.summary }).toMatchObject({ protocols: ['openai'], summary: { invalid: 0, errors: 0, warnings: 0 } });

    const broken = dir.file('broken.sse');
    const chunks = chatChunks(textRequest, chatReply(textRequest));
    writeFileSync(broken, capture([...chunks, DONE, chunks[1]]));
    const findings = validateInput(readInput(broken), testRegistry()).messages.flatMap((m) => m.verdict.findings.map((f) => f.rule));
    expect(findings).toContain(RULES.dataAfterDone);
  });
});
