/**
 * OpenAI-compatible servers drift from the OpenAI description (test/support/openai-compatible-drifts.ts, each
 * drift with its source). The official `openai` client makes one call per drift through `record` against a
 * stand-in that answers with it: what the SDK does with it is as the drift says (it accepts it, raises its
 * own APIError as for OpenAI's errors, or breaks), and record's findings follow the SDK: a drift every SDK
 * accepts is no error, so no agent's CI fails for it; one that breaks the SDK is.
 */
import { describe, expect, it } from 'vitest';
import OpenAI, { APIError } from 'openai';
import { startRecorder } from '../../../src/record/start-recorder.js';
import { openRecording } from '../../../src/store/open-recording.js';
import { fixturesAfterEach } from '../../support/fixtures-after-each.js';
import { COMPATIBLE_DRIFTS, type CompatibleDrift } from '../../support/openai-compatible-drifts.js';
import { startCompatibleUpstream } from '../../support/openai-compatible-upstream.js';
import { testRegistry } from '../../support/shared.js';

const cleanups = fixturesAfterEach();
const TOOL = { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };

/** What the SDK made of the drift's answer. */
async function sdkOutcome(client: OpenAI, drift: CompatibleDrift): Promise<CompatibleDrift['sdk']> {
  const params = { model: drift.id, messages: [{ role: 'user' as const, content: 'Hi' }], tools: [TOOL] };
  try {
    if (!drift.stream) {
      await client.chat.completions.create(params);
      return 'accepts';
    }
    const answer = await client.chat.completions.stream({ ...params, stream_options: { include_usage: true } }).finalChatCompletion();
    // An answer without the tool calls the model made, or with two merged into one, is broken too.
    const calls = answer.choices[0].message.tool_calls ?? [];
    for (const call of calls) if (call.type === 'function') JSON.parse(call.function.arguments);
    return calls.length === streamedToolCalls(drift) ? 'accepts' : 'breaks';
  } catch (error) {
    // An APIError is the SDK's own answer to an error the server reported (a status, or an `error` in the stream).
    return error instanceof APIError ? 'raises-api-error' : 'breaks';
  }
}

/** How many tool calls (by id) the drift's stream made. */
function streamedToolCalls(drift: CompatibleDrift): number {
  const ids = new Set<unknown>();
  for (const event of 'events' in drift.answer ? drift.answer.events : []) {
    const value = event.startsWith('data: {') ? (JSON.parse(event.slice(6)) as { choices?: Array<{ delta?: { tool_calls?: Array<{ id?: string }> } }> }) : {};
    for (const choice of value.choices ?? []) for (const call of choice.delta?.tool_calls ?? []) if (call.id !== undefined) ids.add(call.id);
  }
  return ids.size;
}

describe('OpenAI-compatible servers: what record finds follows what the openai SDK accepts', () => {
  it('judges each documented drift as the SDK takes it', async () => {
    const upstream = await startCompatibleUpstream();
    cleanups.push(() => upstream.close());
    const out = cleanups.scratch().file('compatible.db');
    const recorder = await startRecorder({ target: upstream.origin, listen: 0, out, registry: testRegistry() });
    const client = new OpenAI({ baseURL: `${recorder.url}/v1`, apiKey: 'sk-drift', maxRetries: 0 });
    const outcomes: Record<string, string> = {};
    for (const drift of COMPATIBLE_DRIFTS) outcomes[drift.id] = await sdkOutcome(client, drift);
    await recorder.close();

    const reader = openRecording(out);
    try {
      const exchanges = reader.exchanges();
      expect(exchanges.map((e) => e.protocol)).toEqual(COMPATIBLE_DRIFTS.map(() => 'openai'));
      const byExchange = new Map<number, Set<string>>();
      for (const f of reader.findings()) {
        if (!byExchange.has(f.exchange)) byExchange.set(f.exchange, new Set());
        byExchange.get(f.exchange)!.add(`${f.rule}:${f.severity}`);
      }
      const found = Object.fromEntries(COMPATIBLE_DRIFTS.map((drift, i) => [drift.id, [...(byExchange.get(exchanges[i].id) ?? [])].sort()]));
      expect({ outcomes, found }).toEqual({
        outcomes: Object.fromEntries(COMPATIBLE_DRIFTS.map((d) => [d.id, d.sdk])),
        found: Object.fromEntries(COMPATIBLE_DRIFTS.map((d) => [d.id, d.findings])),
      });
    } finally {
      reader.close();
    }
  });

  it('declares an error finding exactly where the SDK breaks', () => {
    for (const drift of COMPATIBLE_DRIFTS) expect(drift.findings.some((f) => f.endsWith(':error')), drift.id).toBe(drift.sdk === 'breaks');
  });
});
