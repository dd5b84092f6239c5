/**
 * "Real differences are caught": a tool-call argument, a status code and a state value each make
 * `proxy diff` exit 1 and name the place exactly (exchange, message, JSON pointer). Also: id labels
 * in a later exchange continue from the earlier ones, since differing exchanges are loaded again
 * from a checkpoint after the streaming first pass.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { BaseEvent, RunAgentInput } from '@ag-ui/core';
import { EventType } from '@ag-ui/core';
import { diffRecordingFiles } from '../../src/diff/diff-recordings.js';
import { renderMarkdown } from '../../src/diff/render-markdown.js';
import { renderText } from '../../src/diff/render-text.js';
import { exportNdjsonText } from '../../src/export/ndjson-export.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { styleFor } from '../../src/core/style.js';
import { defaultAguiScript } from '../support/agui-agent.js';
import { runCli } from '../cli/run-cli.js';
import { recordAgui, textScript, useCleanups } from './diff-helpers.js';
import { scratch } from '../support/temp-dir.js';

useCleanups();

const plain = styleFor({ isTTY: false } as NodeJS.WriteStream);

/** The stand-in's default run (text, state snapshot + delta, a tool call) with fresh message and tool-call ids, and one event changed. */
function defaultWith(change: (events: Array<BaseEvent & Record<string, unknown>>) => void) {
  return (input: RunAgentInput): BaseEvent[] => {
    const fresh = JSON.stringify(defaultAguiScript(input))
      .replaceAll('"msg-1"', JSON.stringify(`msg-${randomUUID()}`))
      .replaceAll('"call-1"', JSON.stringify(`call_${randomUUID()}`))
      .replaceAll('"tool-result-1"', JSON.stringify(`tool-${randomUUID()}`));
    const events = JSON.parse(fresh) as Array<BaseEvent & Record<string, unknown>>;
    change(events);
    return events;
  };
}

describe('proxy diff names the place of a real difference', () => {
  it('a tool-call argument: exchange, message seq and /delta; with --semantic, the parsed argument', async () => {
    const a = await recordAgui(defaultWith(() => undefined));
    const b = await recordAgui(
      defaultWith((events) => {
        const args = events.filter((e) => e.type === EventType.TOOL_CALL_ARGS);
        args[1].delta = '"Lyon"}';
      }),
    );
    const report = diffRecordingFiles(a, b);
    expect(report.equal).toBe(false);
    expect(report.summary).toMatchObject({ exchanges: { changed: 1, equal: 0 }, messages: { changed: 1, added: 0, removed: 0 }, regressions: 0 });
    const [exchange] = report.exchanges;
    expect(exchange).toMatchObject({ change: 'changed', a: { id: 1, method: 'POST', path: '/agent', status: 200 }, fields: [] });
    expect(exchange.messages).toHaveLength(1);
    // seq 1 is the request; the 2nd TOOL_CALL_ARGS is the 12th message.
    expect(exchange.messages[0]).toMatchObject({ change: 'changed', a: { seq: 12, label: 'TOOL_CALL_ARGS', sender: 'server' }, b: { seq: 12 } });
    expect(exchange.messages[0].differences).toEqual([{ pointer: '/delta', a: '"Paris"}', b: '"Lyon"}' }]);
    expect(renderText(report, plain)).toContain('~ 12 ← TOOL_CALL_ARGS\n        /delta: "\\"Paris\\"}" → "\\"Lyon\\"}"');

    // --semantic: the materialised tool call, its id canonical like every other id.
    const semantic = diffRecordingFiles(a, b, { semantic: true });
    expect(semantic.exchanges[0].messages[0].differences).toEqual([{ pointer: '/messages/0/toolCalls/0/arguments/city', a: 'Paris', b: 'Lyon' }]);
    const c = await recordAgui(defaultWith(() => undefined));
    expect(diffRecordingFiles(a, c, { semantic: true }).exchanges).toEqual([]);
    expect(diffRecordingFiles(a, c).exchanges).toEqual([]);

    const cli = await runCli(['diff', a, b]);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toContain('~ exchange #1 POST /agent 200 sse/agui');
    expect(cli.stdout).toContain('/delta');
  });

  it('a state value: the STATE_DELTA operation and its value; with --semantic, the final state', async () => {
    const a = await recordAgui(defaultWith(() => undefined));
    const b = await recordAgui(
      defaultWith((events) => {
        const delta = events.find((e) => e.type === EventType.STATE_DELTA) as unknown as { delta: Array<{ value: unknown }> };
        delta.delta[1].value = 'failed';
      }),
    );
    const report = diffRecordingFiles(a, b);
    expect(report.summary.messages).toEqual({ changed: 1, added: 0, removed: 0 });
    const [message] = report.exchanges[0].messages;
    expect(message).toMatchObject({ a: { seq: 9, label: 'STATE_DELTA' }, b: { seq: 9 } });
    expect(message.differences).toEqual([{ pointer: '/delta/1/value', a: 'done', b: 'failed' }]);
    expect(message.before).toMatchObject({ seq: 8, label: 'STATE_SNAPSHOT' });
    expect(message.after).toMatchObject({ seq: 10, label: 'TOOL_CALL_START' });

    const semantic = diffRecordingFiles(a, b, { semantic: true });
    expect(semantic.exchanges[0].messages[0].differences).toEqual([{ pointer: '/state/status', a: 'done', b: 'failed' }]);

    const md = await runCli(['diff', a, b, '--format', 'markdown']);
    expect(md.code).toBe(1);
    expect(md.stdout).toContain('| 9 ← STATE_DELTA | `/delta/1/value` | `"done"` | `"failed"` |');
  });

  it('a status code: an exchange-level /status difference, also against a .ndjson golden', async () => {
    const a = await recordAgui(textScript(['Hello']), [{ kind: 'run' }, { kind: 'health' }]);
    // B: the same recording as NDJSON text, with the health check answered 503.
    const reader = RecordingReader.open(a);
    const text = exportNdjsonText(reader);
    reader.close();
    const lines = text.split('\n');
    const health = lines.findIndex((l) => l.includes('"type":"exchange"') && l.includes('"path":"/health"'));
    expect(health).toBeGreaterThan(0);
    lines[health] = lines[health].replace('"status":200', '"status":503');
    const b = scratch('agent-proxy-diff-status-').file('b.ndjson');
    writeFileSync(b, lines.join('\n'));
    expect(readFileSync(b, 'utf8')).toContain('"status":503');

    const report = diffRecordingFiles(a, b);
    expect(report.summary.exchanges).toEqual({ equal: 1, changed: 1, added: 0, removed: 0 });
    expect(report.exchanges).toHaveLength(1);
    expect(report.exchanges[0]).toMatchObject({ change: 'changed', a: { id: 2, method: 'GET', path: '/health', status: 200 }, b: { id: 2, status: 503 }, messages: [] });
    expect(report.exchanges[0].fields).toEqual([{ pointer: '/status', a: 200, b: 503 }]);
    expect(renderText(report, plain)).toContain('~ exchange #2 GET /health 200 http\n    /status: 200 → 503');
    expect(renderMarkdown(report)).toContain('| exchange | `/status` | `200` | `503` |');

    const cli = await runCli(['diff', a, b, '--format', 'json']);
    expect(cli.code).toBe(1);
    expect(JSON.parse(cli.stdout).exchanges[0].fields).toEqual([{ pointer: '/status', a: 200, b: 503 }]);
    expect((await runCli(['diff', a, b, '--ignore', 'status'])).code).toBe(0);
  });

  it('id labels in a later exchange continue from the earlier exchanges', async () => {
    const runs = [{ kind: 'run' as const }, { kind: 'run' as const, path: '/second' }, { kind: 'run' as const, path: '/third' }];
    const a = await recordAgui(textScript(['Hello', ' there']), runs);
    let run = 0;
    const b = await recordAgui((input) => {
      const events = textScript(['Hello', ' there'])(input) as Array<BaseEvent & { messageId?: string }>;
      // In the third run only, the last delta names another message (which was never started).
      if (++run === 3) {
        const last = events.map((e) => e.type).lastIndexOf(EventType.TEXT_MESSAGE_CONTENT);
        events[last] = { ...events[last], messageId: 'msg-somewhere-else' };
      }
      return events;
    }, runs);
    const report = diffRecordingFiles(a, b);
    expect(report.exchanges).toHaveLength(1);
    expect(report.exchanges[0].a).toMatchObject({ id: 3, path: '/third' });
    const [message] = report.exchanges[0].messages;
    // Three messages were started before this delta on each side: the labels are those of a whole-recording walk.
    expect(message.differences).toEqual([{ pointer: '/messageId', a: 'messageId#3', b: 'messageId#4' }]);
    expect(message.verdict).toMatchObject({ change: 'regression', a: 'valid', b: 'invalid' });
  });
});
