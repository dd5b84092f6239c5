/** `findings` as a CI report: a case per exchange, failed by its findings at or above --fail-on; the rest noted. */
import { describe, expect, it } from 'vitest';
import { findingsCiReport } from '../../src/report/from-findings.js';
import type { FindingListRow } from '../../src/store/recording-reader.js';

const EXCHANGES = [
  { id: 1, transport: 'sse', protocol: 'agui', method: 'POST', path: '/agent' },
  { id: 2, transport: 'http', protocol: null, method: 'GET', path: '/health' },
  { id: 3, transport: 'http', protocol: null, method: 'GET', path: '/down' },
] as const;

const row = (exchange: number, seq: number, rule: string, severity: 'error' | 'warning', pointer: string, message: string): FindingListRow => ({
  exchange,
  transport: 'sse',
  protocol: 'agui',
  method: 'POST',
  path: '/agent',
  seq,
  sender: seq === 0 ? 'server' : 'server',
  label: seq === 0 ? 'exchange' : 'TEXT_MESSAGE_CONTENT',
  rule,
  severity,
  pointer,
  message,
});

const FINDINGS = [
  row(1, 3, 'schema', 'error', '/delta', 'must be string'),
  row(1, 5, 'stream-truncated', 'warning', '', 'the run never finished'),
  row(3, 0, 'upstream-unreachable', 'error', '', 'the upstream could not be reached'),
];

describe('findingsCiReport', () => {
  it('--fail-on error: errors fail their case, warnings are notes', () => {
    const report = findingsCiReport({ file: 'run.db', exchanges: [...EXCHANGES], findings: FINDINGS, failOn: 'error', properties: { rule: 'schema' } });
    expect(report).toMatchObject({ command: 'findings', ok: false, totals: { cases: 3, failed: 2, failures: 2 } });
    expect(report.suites[0]!.properties).toEqual({ failOn: 'error', rule: 'schema' });
    const [run, health, down] = report.suites[0]!.cases;
    expect(run!.failures).toEqual([{ kind: 'finding', title: 'error schema', message: 'must be string', details: ['3 ← TEXT_MESSAGE_CONTENT at /delta'] }]);
    expect(run!.notes).toEqual([{ kind: 'finding', title: 'warning stream-truncated', message: 'the run never finished', details: ['5 ← TEXT_MESSAGE_CONTENT at the end of the stream'] }]);
    expect(health).toMatchObject({ name: 'GET /health (#2)', failures: [], notes: [] });
    expect(down!.failures[0]).toMatchObject({ title: 'error upstream-unreachable', details: ['the exchange'] });
  });

  it('--fail-on warning fails on both; without --fail-on nothing fails and every finding is a note', () => {
    expect(findingsCiReport({ file: 'run.db', exchanges: [...EXCHANGES], findings: FINDINGS, failOn: 'warning' }).totals).toMatchObject({ failed: 2, failures: 3 });
    const none = findingsCiReport({ file: 'run.db', exchanges: [...EXCHANGES], findings: FINDINGS });
    expect(none).toMatchObject({ ok: true, totals: { failed: 0, failures: 0 } });
    expect(none.suites[0]!.cases.map((c) => c.notes.length)).toEqual([2, 0, 1]);
  });
});
