/**
 * `--report html`: the report as one page, each recording with its cases, their failures and notes
 * with details; recorded text only ever text, and no script or link out.
 */
import { describe, expect, it } from 'vitest';
import { renderReportHtml } from '../../src/report/html.js';
import { ciReport, type CiReport } from '../../src/report/ci-report.js';
import { parseXml, type XmlElement } from '../support/xml.js';

const HOSTILE = `</td><script>alert(1)</script><img src=x onerror="alert('2')"> & \u0001`;
const HOSTILE_SHOWN = HOSTILE.replace('\u0001', '\\u0001');
const OURS = new Set(['html', 'head', 'meta', 'title', 'style', 'body', 'header', 'footer', 'h1', 'h2', 'p', 'section', 'table', 'tr', 'th', 'td', 'span', 'ul', 'li', 'details', 'summary', 'pre']);

const all = (el: XmlElement): XmlElement[] => [el, ...el.children.flatMap(all)];
const textOf = (el: XmlElement): string => el.text + el.children.map(textOf).join('');

function report(): CiReport {
  return ciReport('diff', [
    {
      name: `b${HOSTILE}.ndjson`,
      file: 'b.ndjson',
      properties: { baseline: 'a.ndjson', odd: HOSTILE },
      cases: [
        { name: 'GET /a (#1)', classname: 'http', exchange: 1, failures: [], notes: [] },
        {
          name: `GET /x${HOSTILE} (#2)`,
          classname: 'pi-rest',
          exchange: 2,
          failures: [
            { kind: 'difference', title: 'changed', message: 'the response differs', details: ['~ 1 ← response', `    /name: "a" → ${JSON.stringify(HOSTILE)}`] },
            { kind: 'regression', title: 'regression', message: HOSTILE, details: [] },
          ],
          notes: [{ kind: 'finding', title: 'warning stream-truncated', message: 'noted', details: ['at the end of the stream'] }],
        },
        { name: 'stdio conversation (#3)', classname: 'pi-rpc', exchange: 3, failures: [], notes: [], skipped: 'this replay does not serve it' },
      ],
    },
  ]);
}

describe('renderReportHtml', () => {
  it('heads the page with the verdict, lists each case with its result, failures unfolded with their details, notes folded', () => {
    const root = parseXml(renderReportHtml(report()));
    expect(textOf(all(root).find((e) => e.name === 'h1')!)).toBe('agent-proxy diff: ❌ 1 of 3 cases failed');
    expect(textOf(all(root).find((e) => e.name === 'h2')!)).toBe(`b${HOSTILE_SHOWN}.ndjson`);
    const properties = all(root).find((e) => e.attributes.class === 'properties')!.children.map((tr) => tr.children.map(textOf));
    expect(properties).toEqual([['baseline', 'a.ndjson'], ['odd', HOSTILE_SHOWN]]);
    const cases = all(root).find((e) => e.attributes.class === 'cases')!.children.slice(1);
    expect(cases.map((tr) => [tr.attributes.id, ...tr.children.slice(0, 2).map(textOf), textOf(tr.children[2]!.children[0]!)])).toEqual([
      ['suite-1-case-1', 'GET /a (#1)', 'http', 'passed'],
      ['suite-1-case-2', `GET /x${HOSTILE_SHOWN} (#2)`, 'pi-rest', 'failed: changed, regression'],
      ['suite-1-case-3', 'stdio conversation (#3)', 'pi-rpc', 'skipped: this replay does not serve it'],
    ]);
    const problems = cases[1]!.children[2]!.children[1]!.children;
    expect(problems.map(textOf)).toEqual([
      `changed: the response differs~ 1 ← response\n    /name: "a" → ${JSON.stringify(HOSTILE)}`,
      `regression: ${HOSTILE_SHOWN}`,
      'warning stream-truncated: notedat the end of the stream',
    ]);
    expect([problems[0]!.children[0]!.attributes.open, problems[2]!.children[0]!.attributes.open]).toEqual(['open', undefined]);
  });

  it('holds our elements alone: no script, no handler, no link; a report that passed says so', () => {
    const root = parseXml(renderReportHtml(report()));
    expect(all(root).map((e) => e.name).filter((n) => !OURS.has(n))).toEqual([]);
    expect(all(root).flatMap((e) => Object.keys(e.attributes)).filter((a) => /^(on|href|src)/i.test(a))).toEqual([]);
    const passed = parseXml(renderReportHtml(ciReport('findings', [{ name: 'a.db', file: 'a.db', properties: {}, cases: [{ name: 'GET /a (#1)', classname: 'http', failures: [], notes: [] }] }])));
    expect(textOf(all(passed).find((e) => e.name === 'h1')!)).toBe('agent-proxy findings: ✅ 1 case passed');
  });
});
