/**
 * Runs OpenAI-compatible scenarios (documented drifts, real outputs) through `record` with the official `openai`
 * client against the compatible stand-in: one call per scenario, `create` for a plain answer and
 * `stream(...).finalChatCompletion()` for a stream. Hands back what the SDK made of each answer and what record
 * found on each exchange (`rule:severity`, sorted), for a test to hold against the scenario's `sdk` and `findings`;
 * and, asked to, what the same calls got from a replay of that recording.
 */
import OpenAI, { APIError } from 'openai';
import { startRecorder } from '../../src/record/start-recorder.js';
import { startReplay } from '../../src/replay/start-replay.js';
import { openRecording } from '../../src/store/open-recording.js';
import { onCleanup } from './cleanups.js';
import type { CompatibleDrift } from './openai-compatible-drifts.js';
import { startCompatibleUpstream } from './openai-compatible-upstream.js';
import { testRegistry } from './shared.js';
import { scratch } from './temp-dir.js';

const TOOL = { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };

/** What the SDK made of an answer: how it took it, and what it handed back (its final completion, or its error's status and message). */
export interface SdkResult {
  outcome: CompatibleDrift['sdk'];
  result: unknown;
}

export interface ScenarioJudgement {
  /** Each scenario's id → what the SDK did with its answer. */
  outcomes: Record<string, CompatibleDrift['sdk']>;
  /** Each scenario's id → what the SDK handed back, recording. */
  results: Record<string, unknown>;
  /** With `replay`: each scenario's id → what the SDK made of the replayed answer. */
  replayed?: Record<string, SdkResult>;
  /** Each scenario's id → record's findings on its exchange. */
  found: Record<string, string[]>;
  /** Each scenario's id → the protocol record gave its exchange. */
  protocols: Record<string, string>;
}

/**
 * `includeUsage`: streams ask for `stream_options.include_usage`, as an agent that counts tokens does; `replay`: the
 * same calls are made again against a replay of the recording (no timing). The stand-in, the replay and the folder
 * are undone after the test (the file's `fixturesAfterEach` or `useCleanups`).
 */
export async function judgeScenarios(scenarios: readonly CompatibleDrift[], options: { includeUsage: boolean; replay?: boolean }): Promise<ScenarioJudgement> {
  const upstream = await startCompatibleUpstream(scenarios);
  onCleanup(() => upstream.close());
  const out = scratch().file('compatible.db');
  const recorder = await startRecorder({ target: upstream.origin, listen: 0, out, registry: testRegistry() });
  const client = new OpenAI({ baseURL: `${recorder.url}/v1`, apiKey: 'sk-compatible', maxRetries: 0 });
  const outcomes: Record<string, CompatibleDrift['sdk']> = {};
  const results: Record<string, unknown> = {};
  for (const scenario of scenarios) ({ outcome: outcomes[scenario.id], result: results[scenario.id] } = await sdkOutcome(client, scenario, options.includeUsage));
  await recorder.close();
  const replayed = options.replay ? await replayedResults(out, scenarios, options.includeUsage) : undefined;

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
    return { outcomes, results, found, protocols, ...(replayed ? { replayed } : {}) };
  } finally {
    reader.close();
  }
}

/** The same calls against a replay of the recording. */
async function replayedResults(recording: string, scenarios: readonly CompatibleDrift[], includeUsage: boolean): Promise<Record<string, SdkResult>> {
  const replay = await startReplay({ recording, listen: 0, timing: 'none' });
  onCleanup(async () => void (await replay.close()));
  const client = new OpenAI({ baseURL: `${replay.url}/v1`, apiKey: 'sk-replay', maxRetries: 0 });
  const replayed: Record<string, SdkResult> = {};
  for (const scenario of scenarios) replayed[scenario.id] = await sdkOutcome(client, scenario, includeUsage);
  return replayed;
}

/** What the SDK made of the scenario's answer. */
async function sdkOutcome(client: OpenAI, scenario: CompatibleDrift, includeUsage: boolean): Promise<SdkResult> {
  const params = { model: scenario.id, messages: [{ role: 'user' as const, content: 'Hi' }], tools: [TOOL] };
  try {
    if (!scenario.stream) return { outcome: 'accepts', result: await client.chat.completions.create(params) };
    const answer = await client.chat.completions.stream({ ...params, ...(includeUsage ? { stream_options: { include_usage: true } } : {}) }).finalChatCompletion();
    // An answer without the tool calls the model made, or with two merged into one, is broken too.
    const calls = answer.choices[0].message.tool_calls ?? [];
    for (const call of calls) if (call.type === 'function') JSON.parse(call.function.arguments);
    return { outcome: calls.length === streamedToolCalls(scenario) ? 'accepts' : 'breaks', result: answer };
  } catch (error) {
    // An APIError is the SDK's own answer to an error the server reported (a status, or an `error` in the stream).
    const result = { error: error instanceof Error ? error.message : String(error), status: error instanceof APIError ? error.status : undefined };
    return { outcome: error instanceof APIError ? 'raises-api-error' : 'breaks', result };
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
