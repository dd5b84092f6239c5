import { describe, expect, it } from 'vitest';
import { createLiveView, formatEvent, statusText } from '../../src/cli/live-view.js';
import type { LiveEvent, RecordingStopped } from '../../src/record/live-events.js';
import type { Style } from '../../src/core/style.js';

const plain: Style = { red: (s) => s, green: (s) => s, yellow: (s) => s, dim: (s) => s, bold: (s) => s };
const totals = { exchanges: 3, messages: 7, invalid: 1, findings: 2 };
const writeFailed: RecordingStopped = { reason: 'write-failed', code: 'E_STORE_WRITE', message: 'cannot write to the recording x.db: disk I/O error', tOffsetMs: 5 };
const exchange: LiveEvent = {
  type: 'exchange-end',
  exchangeId: 4,
  transport: 'http',
  method: 'GET',
  path: '/x',
  status: 200,
  outcome: 'complete',
  messages: 1,
  invalid: 0,
  unchecked: 0,
  durationMs: 3,
  tOffsetMs: 9,
  stored: false,
};

/** What the view writes to stdout and stderr while `run` runs. */
function captured(run: () => void): { stdout: string; stderr: string } {
  const out = { stdout: '', stderr: '' };
  const writes = { stdout: process.stdout.write, stderr: process.stderr.write };
  process.stdout.write = ((chunk: string) => ((out.stdout += chunk), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => ((out.stderr += chunk), true)) as typeof process.stderr.write;
  try {
    run();
  } finally {
    process.stdout.write = writes.stdout;
    process.stderr.write = writes.stderr;
  }
  return out;
}

describe('the live view once recording has stopped', () => {
  it('says so once on stderr and, with --json, as a recording-stopped event', () => {
    const { stdout, stderr } = captured(() => {
      const view = createLiveView({ json: true, quiet: false, style: plain, startedAt: new Date(0), totals: () => totals });
      view.stopped(writeFailed);
      view.stopped(writeFailed);
      view.listener(exchange);
    });
    expect(stderr).toBe('agent-proxy: recording stopped, traffic is still forwarded: cannot write to the recording x.db: disk I/O error\n');
    expect(stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l))).toEqual([
      { event: 'recording-stopped', ...writeFailed },
      expect.objectContaining({ event: 'exchange', exchangeId: 4, stored: false }),
    ]);
  });

  it('says so on stderr even with --quiet', () => {
    const { stdout, stderr } = captured(() => createLiveView({ json: false, quiet: true, style: plain, startedAt: new Date(0), totals: () => totals }).stopped(writeFailed));
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^agent-proxy: recording stopped, traffic is still forwarded: /);
  });

  it('marks exchanges that were not stored, and shows it in the status line', () => {
    expect(formatEvent(exchange, { style: plain, startedAt: new Date(0) })).toMatch(/ #4 GET \/x 200 http 1 msg valid not stored 3ms$/);
    expect(formatEvent({ ...exchange, stored: true }, { style: plain, startedAt: new Date(0) })).not.toMatch(/not stored/);
    expect(statusText(totals, undefined, plain)).toBe('[3 exchanges · 7 messages · 1 invalid · 2 findings]');
    expect(statusText(totals, 'write-failed', plain)).toBe('[3 exchanges · 7 messages · 1 invalid · 2 findings] recording stopped: a write failed');
    expect(statusText(totals, 'recorder-exited', plain)).toMatch(/recording stopped: the recorder ended$/);
    expect(statusText({ exchanges: 1, messages: 1, invalid: 0, findings: 1 }, undefined, plain)).toBe('[1 exchange · 1 message · 0 invalid · 1 finding]');
  });

  it('sums an exchange up as show does, and says who cut it short', () => {
    const line = (over: Partial<Extract<LiveEvent, { type: 'exchange-end' }>>) => formatEvent({ ...exchange, stored: true, ...over } as LiveEvent, { style: plain, startedAt: new Date(0) });
    expect(line({ unchecked: 1 })).toMatch(/ http 1 msg unchecked 3ms$/);
    expect(line({ messages: 3, unchecked: 1 })).toMatch(/ http 3 msg valid, 1 unchecked 3ms$/);
    expect(line({ messages: 3, invalid: 2 })).toMatch(/ http 3 msg 2 invalid 3ms$/);
    expect(line({ outcome: 'aborted', errorCode: 'E_CLIENT_ABORTED' })).toMatch(/ 1 msg valid aborted by the client 3ms$/);
    expect(line({ outcome: 'aborted', errorCode: 'E_PROXY_SHUTDOWN' })).toMatch(/ 1 msg valid cut by proxy shutdown 3ms$/);
  });
});
