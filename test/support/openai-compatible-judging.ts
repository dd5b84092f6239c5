/**
 * Runs OpenAI-compatible scenarios (documented drifts, real outputs) through `record` with the official `openai`
 * client against the compatible stand-in: one call per scenario, `create` for a plain answer and
 * `stream(...).finalChatCompletion()` for a stream. Hands back what the SDK made of each answer and what record
 * found on each exchange (`rule:severity`, sorted), for a test to hold against the scenario's `sdk` and `findings`.
 */
import OpenAI, { APIError } from 'openai';
import { startRecorder } from '../../src/record/start-recorder.js';
import { openRecording } from '../../src/store/open-recording.js';
import { onCleanup } from './cleanups.js';
import type { CompatibleDrift } from './openai-compatible-drifts.js';
import { startCompatibleUpstream } from './openai-compatible-upstream.js';
import { testRegistry } from './shared.js';
import { scratch } from './temp-dir.js';

const TOOL = { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };

export interface ScenarioJudgement {
  /** Each scenario's id → what the SDK did with its answer. */
  outcomes: Record<string, CompatibleDrift['sdk']>;
  /** Each scenario's id → record's findings on its exchange. */
  found: Record<string, string[]>;
  /** Each scenario's id → the protocol record gave its exchange. */
  protocols: Record<string, string>;
}

/**
 * `includeUsage`: streams ask for `stream_options.include_usage`, as an agent that counts tokens does. The stand-in
 * and the folder are undone after the test (the file's `fixturesAfterEach` or `useCleanups`).
 */
export async function judgeScenarios(scenarios: readonly CompatibleDrift[], options: { includeUsage: boolean }): Promise<ScenarioJudgement> {
  const upstream = await startCompatibleUpstream(scenarios);
  onCleanup(() => upstream.close());
  const out = scratch().file('compatible.db');
  const recorder = await startRecorder({ target: upstream.origin, listen: 0, out, registry: testRegistry() });
  const client = new OpenAI({ baseURL: `${recorder.url}/v1`, apiKey: 'sk-compatible', maxRetries: 0 });
  const outcomes: Record<string, CompatibleDrift['sdk']> = {};
  for (const scenario of scenarios) outcomes[scenario.id] = await sdkOutcome(client, scenario, options.includeUsage);
  await recorder.close();

  const reader = openRecording(out);
  try {
    const exchanges = reader.exchanges();
    const byExchange = new Map<number, Set<string>>();
    for (const f of reader.findings()) {
      if (!byExchange.has(f.exchange)) byExchange.set(f.exchange, new Set());
      byExchange.get(f.exchange)!.add(`${f.rule}:${f.severity}`);
    }
    const found = Object.fromEntries(scenarios.map((s, i) => [s.id, [...(byExchange.get(exchanges[i].id) ?? [])].sort()]));
    const protocols = Object.fromEntries(scenarios.map((s, i) => [s.id, exchanges[i].protocol ?? '']));
    return { outcomes, found, protocols };
  } finally {
    reader.close();
  }
}

/** What the SDK made of the scenario's answer. */
async function sdkOutcome(client: OpenAI, scenario: CompatibleDrift, includeUsage: boolean): Promise<CompatibleDrift['sdk']> {
  const params = { model: scenario.id, messages: [{ role: 'user' as const, content: 'Hi' }], tools: [TOOL] };
  try {
    if (!scenario.stream) {
      await client.chat.completions.create(params);
      return 'accepts';
    }
    const answer = await client.chat.completions.stream({ ...params, ...(includeUsage ? { stream_options: { include_usage: true } } : {}) }).finalChatCompletion();
    // An answer without the tool calls the model made, or with two merged into one, is broken too.
    const calls = answer.choices[0].message.tool_calls ?? [];
    for (const call of calls) if (call.type === 'function') JSON.parse(call.function.arguments);
    return calls.length === streamedToolCalls(scenario) ? 'accepts' : 'breaks';
  } catch (error) {
    // An APIError is the SDK's own answer to an error the server reported (a status, or an `error` in the stream).
    return error instanceof APIError ? 'raises-api-error' : 'breaks';
  }
}

/** How many tool calls (by id) the scenario's stream made. */
function streamedToolCalls(scenario: CompatibleDrift): number {
  const ids = new Set<unknown>();
  for (const event of 'events' in scenario.answer ? scenario.answer.events : []) {
    const value = event.startsWith('data: {') ? (JSON.parse(event.slice(6)) as { choices?: Array<{ delta?: { tool_calls?: Array<{ id?: string }> } }> }) : {};
    for (const choice of value.choices ?? []) for (const call of choice.delta?.tool_calls ?? []) if (call.id !== undefined) ids.add(call.id);
  }
  return ids.size;
}
