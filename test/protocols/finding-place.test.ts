/**
 * Where a finding is, in every text output: a place in the message (`at /delta`; `at /` is the key
 * named ""), the end of the stream (a run never finished), or the message as a whole (pointer '').
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findingPlace } from '../../src/protocols/finding-place.js';
import { formatEvent } from '../../src/cli/live-view.js';
import type { Style } from '../../src/core/style.js';
import { runToEnd } from '../hostile/cli-child.js';
import { useCleanups } from '../support/cleanups.js';
import { AGUI_SSE_RUN, writeNdjsonRecording } from '../support/ndjson-recording.js';
import { scratch } from '../support/temp-dir.js';

useCleanups();

const plain: Style = { red: (s) => s, green: (s) => s, yellow: (s) => s, dim: (s) => s, bold: (s) => s };
const TRUNCATED = { rule: 'stream-truncated', severity: 'error' as const, pointer: '', message: 'The stream ended without a terminal event' };
const NOT_OBJECT = { rule: 'event-not-object', severity: 'error' as const, pointer: '', message: 'Invalid event: the frame is not a JSON object' };
const EMPTY_KEY = { rule: 'schema', severity: 'error' as const, pointer: '/', message: 'the key "" must be a string' };

describe('findingPlace', () => {
  it('tells the end of a stream from the whole message from the key named ""', () => {
    expect(findingPlace(TRUNCATED)).toBe('at the end of the stream');
    expect(findingPlace({ rule: 'jsonrpc-unanswered-request', pointer: '' })).toBe('at the end of the stream');
    expect(findingPlace({ rule: 'command-unanswered', pointer: '' })).toBe('at the end of the stream');
    expect(findingPlace(NOT_OBJECT)).toBe('(whole message)');
    expect(findingPlace({ rule: 'schema', pointer: null })).toBe('(whole message)');
    expect(findingPlace(EMPTY_KEY)).toBe('at /');
    expect(findingPlace({ rule: 'schema', pointer: '/delta/0' })).toBe('at /delta/0');
  });

  it('is what the live view says', () => {
    const line = formatEvent(
      { type: 'invalid-message', exchangeId: 2, sender: 'server', label: 'TEXT_MESSAGE_CONTENT', status: 'invalid', findings: [TRUNCATED], tOffsetMs: 5 },
      { style: plain, startedAt: new Date(0) },
    );
    expect(line).toContain('invalid: stream-truncated at the end of the stream: The stream ended');
    expect(line).not.toContain(' at /');
  });
});

describe('show --exchange, findings and validate', () => {
  const recording = () =>
    writeNdjsonRecording([
      {
        ...AGUI_SSE_RUN,
        messages: [
          { sender: 'client', json: { threadId: 't', runId: 'r', messages: [], tools: [], context: [], state: {}, forwardedProps: {} } },
          { sender: 'server', json: { type: 'RUN_STARTED', threadId: 't', runId: 'r', '': 1 }, findings: [EMPTY_KEY] },
          { sender: 'server', json: [1], findings: [NOT_OBJECT] },
          { sender: 'server', json: { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' }, findings: [TRUNCATED] },
        ],
      },
    ]);

  it('show --exchange locates each finding', async () => {
    const shown = await runToEnd(['show', recording(), '--exchange', '1']);
    expect([shown.code, shown.stderr]).toEqual([0, '']);
    expect(shown.stdout).toContain('error schema at /: the key "" must be a string');
    expect(shown.stdout).toContain('error event-not-object (whole message): Invalid event');
    expect(shown.stdout).toContain('error stream-truncated at the end of the stream: The stream ended');
  });

  it('findings locates each finding', async () => {
    const listed = await runToEnd(['findings', recording()]);
    expect(listed.stdout).toContain('error schema at /: the key "" must be a string');
    expect(listed.stdout).toContain('error event-not-object (whole message): Invalid event');
    expect(listed.stdout).toContain('error stream-truncated at the end of the stream: The stream ended');
  });

  it('validate says a run never finished at the end of the stream, not at /', async () => {
    const file = scratch().file('cut.sse');
    writeFileSync(file, 'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n');
    const result = await runToEnd(['validate', file, '--protocol', 'agui']);
    expect(result.stdout).toMatch(/error stream-truncated at the end of the stream: The stream ended/);
    expect(result.stdout).not.toContain(' at /:');
  });
});
