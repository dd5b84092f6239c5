import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EventType, type BaseEvent } from '@ag-ui/core';
import { diffRecordingFiles } from '../../src/diff/diff-recordings.js';
import { renderMarkdown } from '../../src/diff/render-markdown.js';
import { renderText } from '../../src/diff/render-text.js';
import { styleFor } from '../../src/core/style.js';
import type { AguiScript } from '../support/agui-agent.js';
import { runBatch } from '../cli/cli-batch.js';
import { runCli } from '../cli/run-cli.js';
import { recordAgui, recordPiSession, textScript, useCleanups } from './diff-helpers.js';

useCleanups();

const plain = styleFor({ isTTY: false } as NodeJS.WriteStream);
const ORIGINAL = ['Hello', ' from', ' the stand-in.'];

describe('proxy diff', () => {
  it('two recordings of the same run with fresh ids and timestamps are equal (exit 0)', async () => {
    const a = await recordAgui(textScript(ORIGINAL));
    const b = await recordAgui(textScript(ORIGINAL));
    const report = diffRecordingFiles(a, b);
    expect(report.exchanges).toEqual([]);
    expect(report.equal).toBe(true);
    expect(renderText(report, plain)).toContain('equal after normalization');
    const cli = await runCli(['diff', a, b]);
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
  });

  it('the default stand-in run (text, state, tool call) is equal across runs too', async () => {
    const a = await recordAgui(undefined, [{ kind: 'run' }, { kind: 'health' }]);
    const b = await recordAgui(undefined, [{ kind: 'run' }, { kind: 'health' }]);
    expect(diffRecordingFiles(a, b).equal).toBe(true);
  });

  it('a Pi daemon REST + framed RPC session is equal across runs', async () => {
    const a = await recordPiSession();
    const b = await recordPiSession();
    const report = diffRecordingFiles(a, b);
    expect(report.exchanges, JSON.stringify(report.exchanges, null, 1)).toEqual([]);
  });

  it('one changed text delta: exit 1, and the output names the exchange, message and pointer', async () => {
    const a = await recordAgui(textScript(ORIGINAL));
    const b = await recordAgui(textScript(['Hello', ' from', ' the stand-by.']));
    const report = diffRecordingFiles(a, b);
    expect(report.equal).toBe(false);
    expect(report.exchanges).toHaveLength(1);
    const [exchange] = report.exchanges;
    expect(exchange).toMatchObject({ change: 'changed', a: { id: 1, method: 'POST', path: '/agent' } });
    expect(exchange.messages).toHaveLength(1);
    const [message] = exchange.messages;
    expect(message).toMatchObject({ change: 'changed', a: { seq: 6, label: 'TEXT_MESSAGE_CONTENT' }, b: { seq: 6 } });
    expect(message.differences).toEqual([{ pointer: '/delta', a: ' the stand-in.', b: ' the stand-by.' }]);
    expect(message.before?.seq).toBe(5);
    expect(message.after?.seq).toBe(7);
    const text = renderText(report, plain);
    expect(text).toContain('~ exchange #1 POST /agent 200 sse/agui');
    expect(text).toContain('~ 6 ← TEXT_MESSAGE_CONTENT');
    expect(text).toContain('/delta: " the stand-in." → " the stand-by."');
    const cli = await runCli(['diff', a, b]);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toContain('/delta');
  });

  it('a stream that repeats its deltas: the one repeat that changed is the difference, named where it is', async () => {
    // Each repeated text is parsed and walked once per side; the uuid in a delta is labelled the same in both.
    const token = randomUUID();
    const deltas = ['tok ', token, 'tok ', token, 'tok ', 'tok ', token, 'tok '];
    const a = await recordAgui(textScript(deltas));
    const b = await recordAgui(textScript(deltas.map((d, i) => (i === 5 ? 'tok!' : d))));
    const report = diffRecordingFiles(a, b);
    expect(report.exchanges).toHaveLength(1);
    const [message, ...others] = report.exchanges[0].messages;
    expect(others).toEqual([]);
    // The request, RUN_STARTED, TEXT_MESSAGE_START, then the deltas: the sixth delta is message 9.
    expect(message).toMatchObject({ change: 'changed', a: { seq: 9, label: 'TEXT_MESSAGE_CONTENT' }, b: { seq: 9 } });
    expect(message.differences).toEqual([{ pointer: '/delta', a: 'tok ', b: 'tok!' }]);
    expect([message.before?.seq, message.after?.seq]).toEqual([8, 10]);
    expect(diffRecordingFiles(a, await recordAgui(textScript(deltas))).equal).toBe(true);
  });

  it('an inserted exchange does not shift the rest (LCS)', async () => {
    const a = await recordAgui(textScript(ORIGINAL), [{ kind: 'run' }, { kind: 'run', path: '/second' }, { kind: 'run', path: '/third' }]);
    const b = await recordAgui(textScript(ORIGINAL), [{ kind: 'run' }, { kind: 'health' }, { kind: 'run', path: '/second' }, { kind: 'run', path: '/third' }]);
    const report = diffRecordingFiles(a, b);
    expect(report.summary.exchanges).toEqual({ equal: 3, changed: 0, added: 1, removed: 0 });
    expect(report.exchanges).toHaveLength(1);
    expect(report.exchanges[0]).toMatchObject({ change: 'added', a: null, b: { id: 2, method: 'GET', path: '/health' } });
    expect(renderText(report, plain)).toContain('+ exchange #2 GET /health 200 http (only in b)');
  });

  it('--semantic: the same text in different delta chunks is equal; without it, it differs', async () => {
    const a = await recordAgui(textScript(['Hello', ' from the', ' stand-in.']));
    const b = await recordAgui(textScript(['Hel', 'lo from', ' the stand', '-in.']));
    expect(diffRecordingFiles(a, b).equal).toBe(false);
    const semantic = diffRecordingFiles(a, b, { semantic: true });
    expect(semantic.exchanges).toEqual([]);
    expect(semantic.equal).toBe(true);
    // …but a different text is still a difference, named inside the materialised run.
    const c = await recordAgui(textScript(['Hello', ' from the', ' stand-by.']));
    const changed = diffRecordingFiles(a, c, { semantic: true });
    expect(changed.equal).toBe(false);
    expect(changed.exchanges[0].messages[0]).toMatchObject({ a: { label: 'agui-run' } });
    expect(changed.exchanges[0].messages[0].differences).toEqual([{ pointer: '/messages/0/content', a: 'Hello from the stand-in.', b: 'Hello from the stand-by.' }]);
    const cli = await runCli(['diff', a, b, '--semantic']);
    expect(cli.code).toBe(0);
  });

  it('--semantic: reasoning is part of the run, and chunk events compare as the events they expand into', async () => {
    const thought = (parts: string[], chunked: boolean): AguiScript => (input) => {
      const think = `th-${randomUUID()}`;
      const say = `msg-${randomUUID()}`;
      const body = chunked
        ? [
            ...parts.map((delta, i) => ({ type: 'REASONING_MESSAGE_CHUNK', ...(i === 0 ? { messageId: think } : {}), delta })),
            { type: 'TEXT_MESSAGE_CHUNK', messageId: say, delta: 'Hi' },
            { type: 'TEXT_MESSAGE_CHUNK', delta: ' there' },
          ]
        : [
            { type: 'REASONING_MESSAGE_START', messageId: think, role: 'reasoning' },
            ...parts.map((delta) => ({ type: 'REASONING_MESSAGE_CONTENT', messageId: think, delta })),
            { type: 'REASONING_MESSAGE_END', messageId: think },
            { type: 'TEXT_MESSAGE_START', messageId: say, role: 'assistant' },
            { type: 'TEXT_MESSAGE_CONTENT', messageId: say, delta: 'Hi there' },
            { type: 'TEXT_MESSAGE_END', messageId: say },
          ];
      return [{ type: 'RUN_STARTED', threadId: input.threadId, runId: input.runId }, ...body, { type: 'RUN_FINISHED', threadId: input.threadId, runId: input.runId }] as BaseEvent[];
    };
    const a = await recordAgui(thought(['Think', ' hard'], false));
    expect(diffRecordingFiles(a, await recordAgui(thought(['Thi', 'nk hard'], true)), { semantic: true }).equal).toBe(true);
    const changed = diffRecordingFiles(a, await recordAgui(thought(['Think', ' softly'], false)), { semantic: true });
    expect(changed.exchanges[0].messages[0].differences).toEqual([{ pointer: '/messages/0/content', a: 'Think hard', b: 'Think softly' }]);
  });

  it('a message valid in A and invalid in B is reported as a regression', async () => {
    const a = await recordAgui(textScript(ORIGINAL));
    // B sends one more content event after the message ended: that event is invalid.
    const b = await recordAgui((input) => {
      const events = [...(textScript(ORIGINAL)(input) as Array<BaseEvent & { messageId?: string }>)];
      const end = events.findIndex((e) => e.type === EventType.TEXT_MESSAGE_END);
      events.splice(end + 1, 0, { type: EventType.TEXT_MESSAGE_CONTENT, messageId: events[end].messageId, delta: '!' } as BaseEvent);
      return events;
    });
    const report = diffRecordingFiles(a, b);
    expect(report.equal).toBe(false);
    expect(report.summary.regressions).toBe(1);
    const regression = report.exchanges[0].messages.find((m) => m.verdict?.change === 'regression');
    expect(regression).toMatchObject({ change: 'added', b: { label: 'TEXT_MESSAGE_CONTENT', status: 'invalid' }, verdict: { a: null, b: 'invalid' } });
    expect(regression!.verdict!.findings.length).toBeGreaterThan(0);
    expect(renderText(report, plain)).toContain('REGRESSION: - → invalid');
    expect(renderMarkdown(report)).toContain('❌ recordings differ: 1 regression');
  });

  it('an aligned message that turns invalid is a regression valid → invalid', async () => {
    const a = await recordAgui(textScript(ORIGINAL));
    const b = await recordAgui((input) => {
      const events = textScript(ORIGINAL)(input) as Array<BaseEvent & { messageId?: string }>;
      // The last content event names a message that was never started.
      const last = events.map((e) => e.type).lastIndexOf(EventType.TEXT_MESSAGE_CONTENT);
      events[last] = { ...events[last], messageId: 'msg-unknown' };
      return events;
    });
    const report = diffRecordingFiles(a, b);
    const changed = report.exchanges[0].messages.find((m) => m.verdict?.change === 'regression');
    expect(changed).toMatchObject({ change: 'changed', a: { status: 'valid' }, b: { status: 'invalid' }, verdict: { change: 'regression', a: 'valid', b: 'invalid' } });
    expect(changed!.differences.map((d) => d.pointer)).toEqual(['/messageId']);
    expect(report.summary.regressions).toBeGreaterThanOrEqual(1);
    expect(renderText(report, plain)).toContain('REGRESSION: valid → invalid');
  });

  it('json and markdown formats through the CLI; --ignore and --config remove differences', async () => {
    const a = await recordAgui(textScript(ORIGINAL));
    const b = await recordAgui(textScript(['Hello', ' from', ' the stand-by.']));
    const { writeFileSync } = await import('node:fs');
    const config = `${a}.diff.json`;
    writeFileSync(config, JSON.stringify({ ignore: ['/delta'] }));
    // The four diffs in one batch of CLI runs (test/cli/cli-batch.ts); the first also as a process of its own.
    const [json, md, ignored, configured] = await runBatch([
      ['diff', a, b, '--format', 'json'],
      ['diff', a, b, '--format', 'markdown'],
      ['diff', a, b, '--ignore', 'delta'],
      ['diff', a, b, '--config', config],
    ]);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ format: 'agent-proxy/diff', version: 1, equal: false, summary: { exchanges: { changed: 1 }, messages: { changed: 1 } } });
    expect(Object.keys(report)).toEqual(['format', 'version', 'a', 'b', 'options', 'equal', 'summary', 'exchanges']);
    expect(md.code).toBe(1);
    expect(md.stdout).toMatch(/^### agent-proxy diff: ⚠️ recordings differ/);
    expect(md.stdout).toContain('| `/delta` | `" the stand-in."` | `" the stand-by."` |');
    expect(ignored.code).toBe(0);
    expect(configured.code).toBe(0);
  });

  it('exit 2 on a missing file or bad usage', async () => {
    const a = await recordAgui(textScript(ORIGINAL));
    // The three in one batch of CLI runs (test/cli/cli-batch.ts); the first also as a process of its own.
    const [missing, oneSide, yaml] = await runBatch([
      ['diff', a, `${a}.nope`],
      ['diff', a],
      ['diff', a, a, '--format', 'yaml'],
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no recording at');
    expect(oneSide.code).toBe(2);
    expect(yaml.code).toBe(2);
  });
});
