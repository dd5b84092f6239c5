/**
 * `validate rec` reads a recording as record judged it (validate/recording-input.ts): a WebSocket close
 * is not a protocol message, a stream its client cut gets no stream rule, and `#N` is an exchange.
 */
import { describe, expect, it } from 'vitest';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { recordingInput } from '../../src/validate/recording-input.js';
import { validateInput } from '../../src/validate/validate-input.js';
import { AGUI_SSE_RUN, writeNdjsonRecording, type HandExchange } from '../support/ndjson-recording.js';

const registry = SchemaRegistry.load({ useEnv: false });
const closeUnchecked = { status: 'unchecked', reason: 'close frame, not a protocol message' } as const;

/** An ACP session over a WebSocket that both sides close with a close frame, as ws-relay stores it. */
const acpClosed: HandExchange = {
  protocol: 'acp',
  path: '/acp',
  subprotocol: 'acp.v1',
  closeCode: 1000,
  messages: [
    { sender: 'client', json: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } } },
    { sender: 'server', json: { jsonrpc: '2.0', id: 1, result: { protocolVersion: 1 } } },
    { sender: 'server', channel: 'close', json: { code: 1000, reason: '' }, raw: '\u0003\u00e8', ...closeUnchecked },
    { sender: 'client', channel: 'close', json: { code: 1000, reason: '' }, raw: '\u0003\u00e8', ...closeUnchecked },
  ],
};

/** An AG-UI run cut after its start: by `ending` (the client going away, or the upstream). */
function aguiCut(code: string): HandExchange {
  return {
    ...AGUI_SSE_RUN,
    aborted: { code, message: 'cut' },
    messages: [
      { sender: 'client', json: { threadId: 't1', runId: 'r1', state: {}, messages: [], tools: [], context: [], forwardedProps: {} } },
      { sender: 'server', json: { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' } },
      { sender: 'server', json: { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' } },
    ],
  };
}

const rulesOf = (file: string) => validateInput(recordingInput(file), registry).messages.flatMap((m) => m.verdict.findings.map((f) => `#${m.exchange}.${m.seq} ${f.rule}`));

describe('validate of a recording', () => {
  it('does not judge a WebSocket close frame as a protocol message', () => {
    const report = validateInput(recordingInput(writeNdjsonRecording([acpClosed])), registry);
    expect(report.messages.map((m) => [m.verdict.status, m.verdict.findings.map((f) => f.rule)])).toEqual([
      ['valid', []],
      ['valid', []],
      ['unchecked', []],
      ['unchecked', []],
    ]);
    expect(report.messages[2].verdict.reason).toBe('close frame, not a protocol message');
    expect(report.summary.invalid).toBe(0);
  });

  it('makes no stream finding of a stream its client cut, and does of one the upstream cut', () => {
    expect(rulesOf(writeNdjsonRecording([aguiCut('E_CLIENT_ABORTED')]))).toEqual([]);
    expect(rulesOf(writeNdjsonRecording([aguiCut('E_PROXY_SHUTDOWN')]))).toEqual([]);
    expect(rulesOf(writeNdjsonRecording([aguiCut('E_UPSTREAM_RESET')]))).toEqual(['#1.3 stream-truncated']);
  });

  it("tells validate's progress line how many messages the recording holds before it reads them, then each one read", () => {
    const heard: string[] = [];
    const input = recordingInput(writeNdjsonRecording([acpClosed, acpClosed]), { total: (n) => heard.push(`holds ${n}`), read: () => heard.push('read') });
    expect(input.streams.flatMap((s) => s.messages)).toHaveLength(8);
    expect(heard).toEqual(['holds 8', ...new Array<string>(8).fill('read')]);
  });

  it('keeps the stored verdict of a message record could not parse, and numbers messages by exchange', () => {
    const file = writeNdjsonRecording([
      acpClosed,
      {
        protocol: 'acp',
        path: '/acp',
        messages: [{ sender: 'server', raw: '{"jsonrpc":"2.0",', findings: [{ rule: 'invalid-json', severity: 'error', pointer: '', message: 'the message is not valid JSON' }] }],
      },
    ]);
    const report = validateInput(recordingInput(file), registry);
    const last = report.messages[report.messages.length - 1];
    expect([last.exchange, last.seq, last.verdict.status, last.verdict.findings.map((f) => f.rule)]).toEqual([2, 1, 'invalid', ['invalid-json']]);
    expect(report.messages.map((m) => `${m.exchange}.${m.seq}`)).toEqual(['1.1', '1.2', '1.3', '1.4', '2.1']);
  });
});
