import { describe, expect, it } from 'vitest';
import { diffRecordingFiles } from '../../src/diff/diff-recordings.js';
import { renderMarkdown } from '../../src/diff/render-markdown.js';
import { renderText } from '../../src/diff/render-text.js';
import { styleFor } from '../../src/core/style.js';
import { runCli } from '../cli/run-cli.js';
import { STANDIN_SCHEMAS_DIR } from '../support/shared.js';
import { AGUI_SSE_RUN, writeNdjsonRecording, type HandExchange, type HandMessage } from '../support/ndjson-recording.js';
import { recordPiSession, shippedSchemas, useCleanups } from './diff-helpers.js';

useCleanups();

const plain = styleFor({ isTTY: false } as NodeJS.WriteStream);

const INPUT = { threadId: 't1', runId: 'r1', state: {}, messages: [{ id: 'u1', role: 'user', content: 'Hi' }], tools: [], context: [], forwardedProps: {} };

/** An AG-UI run whose text content event is `content`, with the verdict a recorder stored for it (true or not). */
function aguiRun(content: Record<string, unknown>, stored: HandMessage['status']): HandExchange[] {
  const event = (json: Record<string, unknown>, status: HandMessage['status'] = 'valid'): HandMessage => ({ sender: 'server', json, status });
  return [
    {
      ...AGUI_SSE_RUN,
      messages: [
        { sender: 'client', json: INPUT },
        event({ type: 'RUN_STARTED', threadId: 't1', runId: 'r1' }),
        event({ type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' }),
        event({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', ...content }, stored),
        event({ type: 'TEXT_MESSAGE_END', messageId: 'm1' }),
        event({ type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' }),
      ],
    },
  ];
}

describe('diff judges both sides with the schemas loaded now', () => {
  it('a recording made with --schemas and one without, of the same run, are equal (the verdicts are of now, not of then)', async () => {
    const withSchemas = await recordPiSession('with.db');
    const without = await recordPiSession('without.db', shippedSchemas());
    for (const schemas of [[], [STANDIN_SCHEMAS_DIR]]) {
      const report = diffRecordingFiles(withSchemas, without, { schemas });
      expect(report.exchanges, JSON.stringify(report.exchanges, null, 1)).toEqual([]);
      expect(report.options.verdicts).toBe('judged-now');
    }
    const cli = await runCli(['diff', withSchemas, without]);
    expect({ code: cli.code, stderr: cli.stderr }).toEqual({ code: 0, stderr: '' });
    expect((await runCli(['diff', without, withSchemas, '--schemas', STANDIN_SCHEMAS_DIR])).code).toBe(0);
  });

  it('two recordings judged as now are compared as stored', async () => {
    const a = await recordPiSession('a.db');
    expect(diffRecordingFiles(a, a, { schemas: [STANDIN_SCHEMAS_DIR] }).options.verdicts).toBe('recorded');
  });

  it('a stored verdict that was wrong does not make a difference: the same traffic is equal', () => {
    const a = writeNdjsonRecording(aguiRun({ delta: 'Hello' }, 'invalid'), 'a.ndjson');
    const b = writeNdjsonRecording(aguiRun({ delta: 'Hello' }, 'valid'), 'b.ndjson');
    expect(diffRecordingFiles(a, b).equal).toBe(true);
  });

  it('a message that became invalid is a regression, in JSON, text and markdown, whatever the recorder stored', async () => {
    const a = writeNdjsonRecording(aguiRun({ delta: 'Hello' }, 'valid'), 'a.ndjson');
    const b = writeNdjsonRecording(aguiRun({ text: 'Hello' }, 'valid'), 'b.ndjson');
    const report = diffRecordingFiles(a, b);
    expect(report.summary).toMatchObject({ regressions: 1, fixes: 0 });
    const [message] = report.exchanges[0].messages;
    expect(message.verdict).toMatchObject({ change: 'regression', a: 'valid', b: 'invalid' });
    expect(message.verdict!.findings.length).toBeGreaterThan(0);
    expect(renderText(report, plain)).toContain('REGRESSION: valid → invalid');
    expect(renderText(report, plain)).toContain('1 regression');
    expect(renderMarkdown(report)).toContain('❌ **regression** | valid | invalid');
    const cli = await runCli(['diff', a, b, '--json']);
    expect(cli.code).toBe(1);
    expect(JSON.parse(cli.stdout)).toMatchObject({ summary: { regressions: 1 }, options: { verdicts: 'judged-now' } });
  });

  it('a message that became valid is a fix', () => {
    const a = writeNdjsonRecording(aguiRun({ text: 'Hello' }, 'valid'), 'a.ndjson');
    const b = writeNdjsonRecording(aguiRun({ delta: 'Hello' }, 'invalid'), 'b.ndjson');
    const report = diffRecordingFiles(a, b);
    expect(report.summary).toMatchObject({ regressions: 0, fixes: 1 });
    expect(report.exchanges[0].messages[0].verdict).toMatchObject({ change: 'fixed', a: 'invalid', b: 'valid' });
    expect(renderText(report, plain)).toContain('fixed: invalid → valid');
    expect(renderText(report, plain)).toContain('1 fixed');
    expect(renderMarkdown(report)).toContain('✅ fixed | invalid | valid');
  });
});
