/** The report as Markdown: well-formed tables whatever the traffic holds, and details in fences nothing inside can close. */
import { describe, expect, it } from 'vitest';
import { renderReportMarkdown } from '../../src/report/markdown.js';
import { ciReport } from '../../src/report/ci-report.js';
import { gfmTables, cellText } from '../support/gfm-tables.js';

const HOSTILE = 'a | b \\| c `code | x` <img src=x onerror=alert(1)> *bold* _em_ [link](http://x) ~~s~~\nnext line';

function report() {
  return ciReport('diff', [
    {
      name: 'runs/b|c.ndjson',
      file: 'runs/b|c.ndjson',
      properties: {},
      cases: [
        { name: 'POST /agent (#1)', classname: 'agui', exchange: 1, failures: [], notes: [] },
        {
          name: `GET /x|y (#2)`,
          classname: 'http',
          exchange: 2,
          failures: [{ kind: 'regression', title: 'regression', message: HOSTILE, details: ['```', '````` fence', HOSTILE] }],
          notes: [{ kind: 'difference', title: 'changed', message: 'noted', details: [] }],
        },
      ],
    },
  ]);
}

describe('renderReportMarkdown', () => {
  it('says the verdict, a table of recordings and one of failures, each cell one cell', () => {
    const text = renderReportMarkdown(report());
    expect(text.split('\n')[0]).toBe('### agent-proxy diff: ❌ 1 of 2 cases failed');
    const [recordings, failures] = gfmTables(text);
    expect(recordings!.header).toEqual(['recording', 'cases', 'passed', 'failed', 'skipped']);
    expect(recordings!.rows.map((r) => r.map(cellText))).toEqual([['runs/b|c.ndjson', '2', '1', '1', '0']]);
    expect(failures!.header).toEqual(['recording', 'case', 'failure', 'message']);
    expect(failures!.rows.map((r) => r.map(cellText))).toEqual([['runs/b|c.ndjson', 'GET /x|y (#2)', 'regression', HOSTILE.replace('\n', ' ')]]);
    // No markup of the traffic's is live: no tag opens, nothing emphasises or links.
    expect(failures!.rows[0]![3]).not.toMatch(/<img|(?<!\\)[*_[`~]/);
    expect(text).toContain('1 note besides (found, not failing)');
  });

  it('puts the details in a fence longer than any run of backticks in them', () => {
    const text = renderReportMarkdown(report());
    const fence = /\n(`{3,})\n([\s\S]*?)\n\1\n/.exec(text);
    expect(fence![1]).toBe('``````');
    expect(fence![2]).toBe(['regression: ' + HOSTILE, '  ```', '  ````` fence', '  ' + HOSTILE].join('\n'));
    expect(gfmTables(text)).toHaveLength(2);
  });

  it('a report with nothing failed has its verdict and no failures table', () => {
    const text = renderReportMarkdown(ciReport('findings', [{ name: 'a.db', file: 'a.db', properties: {}, cases: [] }]));
    expect(text).toBe('### agent-proxy findings: ✅ 0 cases passed\n\n| recording | cases | passed | failed | skipped |\n|---|---:|---:|---:|---:|\n| a.db | 0 | 0 | 0 | 0 |\n');
  });
});
