/** The report's totals and verdict come from its cases, and docs/ci-reports.md shows the JSON shape the code makes. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cappedDetails, ciReport, MAX_DETAILS, type CiReport } from '../../src/report/ci-report.js';
import { diffCiReport } from '../../src/report/from-diff.js';

const DOC = fileURLToPath(new URL('../../docs/ci-reports.md', import.meta.url));

/** Every key path of a JSON value, arrays by their first element. */
function shape(value: unknown, at = ''): string[] {
  if (Array.isArray(value)) return value.length === 0 ? [`${at}[]`] : shape(value[0], `${at}[]`);
  if (value === null || typeof value !== 'object') return [at];
  return Object.entries(value).flatMap(([k, v]) => [`${at}.${k}`, ...shape(v, `${at}.${k}`)]);
}

describe('ciReport', () => {
  it('counts cases, failed, skipped and failures, and is ok only with no failure', () => {
    const report = ciReport('replay', [
      {
        name: 'a',
        file: 'a',
        properties: {},
        cases: [
          { name: '1', classname: 'http', failures: [], notes: [] },
          { name: '2', classname: 'http', failures: [], notes: [], skipped: 'why' },
          { name: '3', classname: 'http', failures: [{ kind: 'miss', title: 'miss', message: 'm', details: [] }, { kind: 'unused', title: 'unused', message: 'u', details: [] }], notes: [] },
        ],
      },
    ]);
    expect(report).toMatchObject({ format: 'agent-proxy/ci-report', version: 1, ok: false, totals: { suites: 1, cases: 3, failed: 1, skipped: 1, failures: 2 } });
    expect(ciReport('findings', []).ok).toBe(true);
  });

  it('caps details, saying how many were left out', () => {
    const lines = Array.from({ length: MAX_DETAILS + 5 }, (_, i) => `line ${i}`);
    const capped = cappedDetails(lines);
    expect(capped).toHaveLength(MAX_DETAILS);
    expect(capped.at(-1)).toBe('…and 6 more');
    expect(cappedDetails(['a'])).toEqual(['a']);
  });

  it('the JSON example in docs/ci-reports.md has the shape diffCiReport makes', () => {
    const text = readFileSync(DOC, 'utf8');
    const documented = JSON.parse(/## JSON[\s\S]*?```json\n([\s\S]*?)\n```/.exec(text)![1]!) as CiReport;
    const exchange = documented.suites[0]!.cases[0]!;
    const made = diffCiReport({
      report: {
        format: 'agent-proxy/diff',
        version: 1,
        a: { file: 'golden.ndjson', exchanges: 1, messages: 3 },
        b: { file: 'ci.db', exchanges: 1, messages: 3 },
        options: { semantic: true, ignore: [], verdicts: 'recorded' },
        equal: false,
        summary: { exchanges: { equal: 0, changed: 1, added: 0, removed: 0 }, messages: { changed: 1, added: 0, removed: 0 }, regressions: 1, fixes: 0 },
        exchanges: [
          {
            change: 'changed',
            a: { id: 1, transport: 'sse', protocol: 'agui', method: 'POST', path: '/agent', status: 200 },
            b: { id: 1, transport: 'sse', protocol: 'agui', method: 'POST', path: '/agent', status: 200 },
            fields: [],
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
        ],
      },
      exchanges: [{ id: 1, transport: 'sse', protocol: 'agui', method: 'POST', path: '/agent' }],
    });
    expect(shape(documented).sort()).toEqual(shape(made).sort());
    expect(made.suites[0]!.cases[0]).toEqual(exchange);
    expect(made.suites[0]!.properties).toEqual(documented.suites[0]!.properties);
    expect(made.totals).toEqual(documented.totals);
  });
});
