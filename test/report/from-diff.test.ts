/** A diff as a CI report: a case per exchange of the compared recording, failed by a difference (or only by a regression). */
import { describe, expect, it } from 'vitest';
import { diffCiReport } from '../../src/report/from-diff.js';
import type { DiffReport, ExchangeRef } from '../../src/diff/diff-report.js';
import type { CaseExchange } from '../../src/report/case-name.js';

const run = (id: number): ExchangeRef => ({ id, transport: 'sse', protocol: 'agui', method: 'POST', path: '/agent', status: 200 });
const health = (id: number): ExchangeRef => ({ id, transport: 'http', protocol: null, method: 'GET', path: '/health', status: 200 });
const session = (id: number): ExchangeRef => ({ id, transport: 'ws', protocol: 'pi-daemon-rpc', method: 'GET', path: '/v1/session/pd-1f2e3d4c5b6a7980/rpc', status: 101 });

const REPORT: DiffReport = {
  format: 'agent-proxy/diff',
  version: 1,
  a: { file: 'golden.ndjson', exchanges: 3, messages: 9 },
  b: { file: 'ci.db', exchanges: 3, messages: 9 },
  options: { semantic: true, ignore: ['baseUrl'], verdicts: 'recorded' },
  equal: false,
  summary: { exchanges: { equal: 1, changed: 1, added: 1, removed: 1 }, messages: { changed: 1, added: 0, removed: 0 }, regressions: 1, fixes: 0 },
  exchanges: [
    {
      change: 'changed',
      a: run(1),
      b: run(1),
      fields: [{ pointer: 'status', a: 200, b: 500 }],
      messages: [
        {
          change: 'changed',
          a: { seq: 3, sender: 'server', label: 'TEXT_MESSAGE_CONTENT', status: 'valid' },
          b: { seq: 3, sender: 'server', label: 'TEXT_MESSAGE_CONTENT', status: 'invalid' },
          differences: [{ pointer: '/delta', a: 'Hello', b: 5 }],
          verdict: { change: 'regression', a: 'valid', b: 'invalid', findings: [{ rule: 'schema', severity: 'error', pointer: '/delta', message: 'must be string' }] },
          before: null,
          after: null,
        },
      ],
    },
    { change: 'added', a: null, b: session(3), fields: [], messages: [] },
    { change: 'removed', a: health(2), b: null, fields: [], messages: [] },
  ],
};

const B_EXCHANGES: CaseExchange[] = [run(1), health(2), session(3)];

describe('diffCiReport', () => {
  it('fails each exchange that differs, with what differs, and the regression with its findings', () => {
    const report = diffCiReport({ report: REPORT, exchanges: B_EXCHANGES });
    expect(report).toMatchObject({ format: 'agent-proxy/ci-report', version: 1, command: 'diff', ok: false, totals: { suites: 1, cases: 4, failed: 3, skipped: 0, failures: 4 } });
    const [suite] = report.suites;
    expect(suite!.name).toBe('ci.db');
    expect(suite!.properties).toEqual({ baseline: 'golden.ndjson', semantic: 'true', failOn: 'difference', ignore: 'baseUrl' });
    expect(suite!.cases.map((c) => [c.name, c.classname, c.exchange, c.failures.map((f) => f.title)])).toEqual([
      ['POST /agent (#1)', 'agui', 1, ['changed', 'regression']],
      ['GET /health (#2)', 'http', 2, []],
      ['WebSocket /v1/session/{id}/rpc (#3)', 'pi-daemon-rpc', 3, ['added']],
      ['GET /health (#2 of the baseline)', 'http', undefined, ['removed']],
    ]);
    const [changed, regression] = suite!.cases[0]!.failures;
    expect(changed).toEqual({ kind: 'difference', title: 'changed', message: 'differs from the baseline: 1 exchange field, 1 message changed, 0 added, 0 removed', details: ['status: 200 → 500', '~ 3 ← TEXT_MESSAGE_CONTENT', '    /delta: "Hello" → 5'] });
    expect(regression).toEqual({
      kind: 'regression',
      title: 'regression',
      message: '3 ← TEXT_MESSAGE_CONTENT: valid in the baseline, invalid now: schema at /delta: must be string',
      details: ['error schema at /delta: must be string'],
    });
  });

  it('with failOn regression, only regressions fail; the other differences are notes', () => {
    const report = diffCiReport({ report: REPORT, exchanges: B_EXCHANGES, failOn: 'regression', command: 'redrive' });
    expect(report).toMatchObject({ command: 'redrive', ok: false, totals: { failed: 1, failures: 1 } });
    expect(report.suites[0]!.cases.map((c) => [c.failures.map((f) => f.title), c.notes.map((n) => n.title)])).toEqual([
      [['regression'], ['changed']],
      [[], []],
      [[], ['added']],
      [[], ['removed']],
    ]);
  });

  it('two equal recordings: every exchange a passed case', () => {
    const equal: DiffReport = { ...REPORT, equal: true, exchanges: [], summary: { ...REPORT.summary, regressions: 0 } };
    const report = diffCiReport({ report: equal, exchanges: B_EXCHANGES });
    expect(report).toMatchObject({ ok: true, totals: { cases: 3, failed: 0, failures: 0 } });
  });
});
