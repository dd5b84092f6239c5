/**
 * The contract between the AG-UI run model and its two users: the inspector's run view
 * (protocols/agui/run-view.ts) and `diff --semantic` (diff/semantic.ts) must show the same run the model
 * materialises, on every scenario. A user that folds events on its own again diverges from the model
 * somewhere in these scenarios, and the source check below names it before that.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { materializeAguiRun } from '../../../src/protocols/agui/semantic.js';
import { contentText, materializeRun, runMessages, toolCallsOf, type AguiMessage } from '../../../src/protocols/agui/materialize.js';
import { runView, stateAt } from '../../../src/protocols/agui/run-view.js';
import type { WalkedMessage } from '../../../src/ui/server/inspector-data.js';
import { RUN_SCENARIOS } from './run-scenarios.js';

const INPUT = { threadId: 't1', runId: 'r1', state: { counter: -1 }, messages: [{ id: 'u1', role: 'user', content: 'Hi' }] };

/** What a user shows of a run, in one shape: each message's role and text, each tool call's name, arguments and result. */
interface Shown {
  texts: Record<string, { role: string; text: string }>;
  calls: Record<string, { name: string; args: unknown; result: string | null }>;
}

const json = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** The messages the run made or changed, as a user shows them. */
function fromModel(messages: AguiMessage[]): Shown {
  const shown: Shown = { texts: {}, calls: {} };
  for (const m of messages) {
    if (m.role === 'activity') continue;
    const calls = toolCallsOf(m) ?? [];
    if (m.role === 'tool') {
      shown.calls[m.toolCallId as string].result = contentText(m.content);
      continue;
    }
    if (contentText(m.content) !== '' || calls.length === 0) shown.texts[m.id as string] = { role: m.role as string, text: contentText(m.content) };
    for (const c of calls) shown.calls[c.id as string] = { name: c.function.name as string, args: json(c.function.arguments), result: null };
  }
  return shown;
}

function walked(events: unknown[]): WalkedMessage[] {
  const row = (seq: number, sender: 'client' | 'server', value: unknown): WalkedMessage => ({ seq, sender, carrier: 'event', channel: null, tOffsetMs: seq, status: 'valid', json: value });
  return [row(1, 'client', INPUT), ...events.map((ev, i) => row(i + 2, 'server', ev))];
}

describe('the inspector and diff --semantic show the run the model materialises', () => {
  for (const scenario of RUN_SCENARIOS) {
    it(scenario.name, () => {
      const events = scenario.events('t1', 'r1');
      const model = materializeRun(events, INPUT);
      const expected = fromModel(runMessages(model));

      // The inspector: GET /api/exchanges/:id/run and /state.
      const view = runView(1, walked(events), () => []);
      const inspector: Shown = { texts: {}, calls: {} };
      for (const item of view.items) {
        if (item.kind === 'message') inspector.texts[item.id] = { role: item.role, text: item.text };
        if (item.kind === 'reasoning') inspector.texts[item.id] = { role: 'reasoning', text: item.text };
        if (item.kind === 'tool-call') inspector.calls[item.id] = { name: item.name, args: json(item.args), result: item.result?.content ?? null };
      }
      expect(inspector).toEqual(expected);
      expect(stateAt(walked(events), Number.MAX_SAFE_INTEGER).state).toEqual(model.state);
      expect(view.outcome.status).toBe(model.outcome.status);

      // diff --semantic: the agui-run result it compares.
      const semantic = materializeAguiRun(events, INPUT);
      const diff: Shown = { texts: {}, calls: {} };
      for (const m of semantic.messages) {
        const calls = (m.toolCalls ?? []) as Array<{ id: string; name: string; arguments: unknown }>;
        if (m.role === 'tool') {
          diff.calls[m.toolCallId as string].result = contentText(m.content);
          continue;
        }
        if (m.role === 'activity') continue;
        if (contentText(m.content) !== '' || calls.length === 0) diff.texts[m.id as string] = { role: m.role as string, text: contentText(m.content) };
        for (const c of calls) diff.calls[c.id] = { name: c.name, args: c.arguments, result: null };
      }
      expect(diff).toEqual(expected);
      expect(semantic.state).toEqual(model.state);
      expect(semantic.outcome.status).toBe(model.outcome.status === 'open' ? 'incomplete' : model.outcome.status);
    });
  }

  it('neither user folds AG-UI message events itself: only the model names them', () => {
    const folding = /['"](TEXT_MESSAGE_CONTENT|TEXT_MESSAGE_CHUNK|TOOL_CALL_ARGS|TOOL_CALL_CHUNK|REASONING_MESSAGE_CONTENT|REASONING_MESSAGE_CHUNK)['"]/;
    const offenders = [...sources('src/diff'), ...sources('src/ui')].filter((file) => folding.test(readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });
});

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}
