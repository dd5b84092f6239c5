import { describe, expect, it } from 'vitest';
import { diffRecordingFiles } from '../../src/diff/diff-recordings.js';
import { renderText } from '../../src/diff/render-text.js';
import { styleFor } from '../../src/core/style.js';
import { AGUI_SSE_RUN, writeNdjsonRecording, type HandExchange, type HandMessage } from '../support/ndjson-recording.js';

const plain = styleFor({ isTTY: false } as NodeJS.WriteStream);

/** An AG-UI run over SSE: the user says `said`, the agent answers `answer`. */
function aguiRun(said: string, answer: string): HandExchange {
  const input = { threadId: 't1', runId: 'r1', state: {}, messages: [{ id: 'u1', role: 'user', content: said }], tools: [], context: [], forwardedProps: {} };
  const server = (json: Record<string, unknown>): HandMessage => ({ sender: 'server', json });
  return {
    ...AGUI_SSE_RUN,
    messages: [
      { sender: 'client', json: input },
      server({ type: 'RUN_STARTED', threadId: 't1', runId: 'r1' }),
      server({ type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' }),
      server({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: answer }),
      server({ type: 'TEXT_MESSAGE_END', messageId: 'm1' }),
      server({ type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' }),
    ],
  };
}

/** A Pi RPC session over stdio: one prompt, its events; `extra` events go before the message's end. */
function piSession(text: string, extra: Array<Record<string, unknown>> = []): HandExchange {
  const message = { role: 'assistant', content: [{ type: 'text', text }] };
  return {
    transport: 'stdio',
    protocol: 'pi-rpc',
    messages: [
      { sender: 'client', json: { id: 'c1', type: 'prompt', message: 'read it' } },
      { sender: 'server', json: { id: 'c1', type: 'response', command: 'prompt', success: true } },
      { sender: 'server', json: { type: 'agent_start' } },
      { sender: 'client', json: { id: 'c2', type: 'get_state' } },
      { sender: 'server', json: { type: 'turn_start' } },
      ...extra.map((json): HandMessage => ({ sender: 'server', json })),
      { sender: 'server', json: { type: 'message_end', message } },
      { sender: 'server', json: { type: 'turn_end' } },
      { sender: 'server', json: { type: 'agent_end' } },
    ],
  };
}

describe('diff --semantic text output', () => {
  const a = writeNdjsonRecording([aguiRun('Hi', 'Hello'), piSession('It says hello.')], 'a.ndjson');
  const b = writeNdjsonRecording([aguiRun('Hey', 'Hullo'), piSession('It says hullo.', [{ type: 'tool_execution_end', toolCallId: 'call-1', toolName: 'read', result: { content: [{ type: 'text', text: 'hello' }] }, isError: false }])], 'b.ndjson');
  const text = () => renderText(diffRecordingFiles(a, b, { semantic: true }), plain);

  it('labels a request by its route, never `object`', () => {
    expect(text()).toContain('~ 1 → POST /agent');
    expect(text()).not.toMatch(/\bobject\b/);
  });

  it('takes context lines from the change’s own direction', () => {
    // Only the run (the server's direction) changed: the equal request is no context of it.
    const run = renderText(diffRecordingFiles(writeNdjsonRecording([aguiRun('Hi', 'Hello')]), writeNdjsonRecording([aguiRun('Hi', 'Hullo')]), { semantic: true }), plain);
    expect(run).toContain('~ 6 ← agui-run');
    expect(run).not.toMatch(/^ {6}\d+ → /m);
  });

  it('shows context lines in order, once', () => {
    const session = text().split('~ exchange #2')[1];
    const context = session.split('\n').filter((l) => /^ {6}\d+ /.test(l));
    expect(context).toEqual(['      5 ← turn_start', '      7 ← turn_end', '      8 ← agent_end']);
    const lines = session.split('\n');
    expect(lines.indexOf('      5 ← turn_start')).toBeLessThan(lines.findIndex((l) => l.includes('tool_execution_end')));
    expect(lines.findIndex((l) => l.includes('~ 6 ← message_end'))).toBeLessThan(lines.indexOf('      7 ← turn_end'));
  });

  it('shows what an added message says, not only its label', () => {
    const session = text().split('~ exchange #2')[1];
    expect(session).toContain('+ 6 ← tool_execution_end (only in b)');
    expect(session).toContain('/toolName: "read"');
    expect(session).toContain('/result: {"content":[{"text":"hello","type":"text"}]}');
  });
});
