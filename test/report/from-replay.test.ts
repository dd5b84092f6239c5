/** A strict replay as a CI report: served exchanges pass, unused ones fail, misses fail; what the replay cannot serve is skipped. */
import { describe, expect, it } from 'vitest';
import { replayCiReport } from '../../src/report/from-replay.js';

const EXCHANGES = [
  { id: 1, transport: 'sse', protocol: 'agui', method: 'POST', path: '/agent' },
  { id: 2, transport: 'http', protocol: null, method: 'GET', path: '/health' },
  { id: 3, transport: 'stdio', protocol: 'pi-rpc', method: null, path: null },
] as const;

describe('replayCiReport', () => {
  it('strict: a served exchange passes, an unused one fails, a miss is a failed case of its own, another transport is skipped', () => {
    const report = replayCiReport({
      command: 'replay',
      file: 'run.ndjson',
      exchanges: [...EXCHANGES],
      outcome: { strict: true, served: [1, 1], unused: [2], misses: [{ message: 'POST /agnet matches no recorded exchange', request: 'POST /agnet' }], unusedLines: [] },
    });
    expect(report).toMatchObject({ command: 'replay', ok: false, totals: { cases: 4, failed: 2, skipped: 1, failures: 2 } });
    expect(report.suites[0]!.cases.map((c) => [c.name, c.failures.map((f) => f.kind), c.skipped])).toEqual([
      ['POST /agent (#1)', [], undefined],
      ['GET /health (#2)', ['unused'], undefined],
      ['stdio conversation (#3)', [], 'this replay does not serve it (another transport, or not asked for)'],
      ['miss 1: POST /agnet', ['miss'], undefined],
    ]);
    expect(report.suites[0]!.cases[3]!.failures[0]!.message).toBe('POST /agnet matches no recorded exchange');
  });

  it('a line replay: its misses and unused lines fail its conversation', () => {
    const report = replayCiReport({
      command: 'fixture',
      file: 'pi.ndjson',
      exchanges: [...EXCHANGES],
      outcome: {
        strict: true,
        served: [3],
        unused: [],
        misses: [{ message: 'replay miss: line 2 {"type":"promt"} does not match recorded line 3', exchange: 3, request: 'line 2' }],
        unusedLines: [{ exchange: 3, seq: 5, text: '{"type":"abort"}\n' }],
      },
    });
    const conversation = report.suites[0]!.cases[2]!;
    expect(conversation.failures).toEqual([
      { kind: 'miss', title: 'miss', message: 'replay miss: line 2 {"type":"promt"} does not match recorded line 3', details: [] },
      { kind: 'unused', title: 'unused lines', message: '1 recorded client line never came', details: ['recorded line 5: {"type":"abort"}'] },
    ]);
    expect(report.totals).toMatchObject({ cases: 3, failed: 1, skipped: 2, failures: 2 });
  });

  it('not strict: nothing fails; unused exchanges are skipped and misses noted', () => {
    const report = replayCiReport({
      command: 'fixture',
      file: 'run.ndjson',
      exchanges: [...EXCHANGES],
      outcome: { strict: false, served: [1], unused: [2], misses: [{ message: 'm', request: 'GET /x' }], unusedLines: [{ seq: 2, text: 'x' }] },
    });
    expect(report).toMatchObject({ ok: true, totals: { failures: 0 } });
    expect(report.suites[0]!.cases.map((c) => [c.name, c.skipped, c.notes.length])).toEqual([
      ['POST /agent (#1)', undefined, 0],
      ['GET /health (#2)', 'no client asked for this recorded exchange', 0],
      ['stdio conversation (#3)', 'this replay does not serve it (another transport, or not asked for)', 0],
      ['miss 1: GET /x', undefined, 1],
      ['unused recorded lines', undefined, 1],
    ]);
  });
});
