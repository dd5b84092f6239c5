/**
 * JUnit XML: valid against the JUnit schema CI systems read (the Jenkins xunit plugin's
 * junit-10.xsd, kept in test/fixtures/junit/ with its source and license) by libxml2's validator,
 * and every character of recorded traffic either kept exactly or, where XML 1.0 cannot hold it,
 * written visibly.
 */
import { describe, expect, it } from 'vitest';
import { renderJunit } from '../../src/report/junit.js';
import { ciReport, type CiCase, type CiReport } from '../../src/report/ci-report.js';
import { parseXml, type XmlElement } from '../support/xml.js';
import { junitSchemaErrors } from '../support/junit-schema.js';

/** Every C0 control character, DEL and C1's first, and a lone surrogate of each half. */
const CONTROLS = `${Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('')}\u007f\u0080 \ud800 \udc00 end`;

const HOSTILE = 'a "quoted" <tag> & \'apostrophe\'\tTAB\nnew line\r\nCRLF ]]> end \u0001\u001b[31m \ud800 lone \uFFFE 😀';

function passed(name: string, exchange: number): CiCase {
  return { name, classname: 'agui', exchange, failures: [], notes: [] };
}

function sample(): CiReport {
  return ciReport('replay', [
    {
      name: 'recordings/run.ndjson',
      file: 'recordings/run.ndjson',
      properties: { strict: 'true', odd: HOSTILE },
      cases: [
        passed('POST /agent (#1)', 1),
        {
          name: `GET /x${HOSTILE} (#2)`,
          classname: 'pi-rest',
          exchange: 2,
          failures: [
            { kind: 'unused', title: 'unused', message: 'no client asked for this recorded exchange', details: [] },
            { kind: 'miss', title: 'miss', message: HOSTILE, details: [HOSTILE, ']]>]]>'] },
          ],
          notes: [{ kind: 'finding', title: 'warning x', message: 'noted ]]>', details: [] }],
        },
        { name: 'stdio conversation (#3)', classname: 'pi-rpc', exchange: 3, failures: [], notes: [], skipped: 'this replay does not serve it' },
      ],
    },
    { name: 'second.db', file: 'second.db', properties: {}, cases: [] },
  ]);
}

function all(el: XmlElement, name: string): XmlElement[] {
  return [...(el.name === name ? [el] : []), ...el.children.flatMap((c) => all(c, name))];
}

describe('renderJunit', () => {
  it('is valid against junit-10.xsd, with failures or none, odd characters and long messages; and the validator finds what the schema forbids', async () => {
    const xml = renderJunit(sample());
    const long = 'x'.repeat(200_000);
    const longCase: CiCase = { ...passed(`GET /${long} (#1)`, 1), failures: [{ kind: 'difference', title: 'changed', message: long, details: [long, CONTROLS] }], notes: [{ kind: 'finding', title: CONTROLS, message: long, details: [] }] };
    const broken = (from: string, to: string) => {
      expect(xml).toContain(from);
      return xml.replace(from, to);
    };
    // One validator run for all: the reports to pass, then each break of the schema, which must fail.
    const errors = await junitSchemaErrors([
      { name: 'failures, odd characters', xml },
      { name: 'no failures', xml: renderJunit(ciReport('findings', [{ name: 'a.db', file: 'a.db', properties: {}, cases: [passed('POST /agent (#1)', 1)] }])) },
      { name: 'no recordings', xml: renderJunit(ciReport('diff', [])) },
      { name: 'control characters, long messages', xml: renderJunit(ciReport('diff', [{ name: CONTROLS, file: CONTROLS, properties: { [CONTROLS]: long }, cases: [longCase] }])) },
      { name: 'no tests attribute', xml: broken('<testsuite name="second.db" tests="0"', '<testsuite name="second.db"') },
      { name: 'an undeclared attribute', xml: broken('<testcase name="POST /agent (#1)" classname="agui"/>', '<testcase name="x" colour="red"/>') },
      { name: 'a failure outside a case', xml: broken('<properties>', '<failure/><properties>') },
      { name: 'a case outside a suite', xml: broken('</testsuites>', '<testcase name="stray"/></testsuites>') },
      { name: 'a control character', xml: broken('(#1)', '(#1) \u0001') },
    ]);
    expect(Object.fromEntries(errors)).toEqual({
      'failures, odd characters': [],
      'no failures': [],
      'no recordings': [],
      'control characters, long messages': [],
      'no tests attribute': [expect.stringMatching(/Element 'testsuite': The attribute 'tests' is required but missing/)],
      'an undeclared attribute': [expect.stringMatching(/Element 'testcase', attribute 'colour': The attribute 'colour' is not allowed/)],
      'a failure outside a case': [expect.stringMatching(/Element 'failure': This element is not expected/)],
      'a case outside a suite': [expect.stringMatching(/Element 'testcase': This element is not expected/)],
      'a control character': [expect.stringMatching(/parser error : invalid character in attribute value/)],
    });
  });

  it('has a suite per recording, a case per case, one failure per failed case', () => {
    const xml = renderJunit(sample());
    const root = parseXml(xml);
    expect(root.attributes).toMatchObject({ name: 'agent-proxy replay', tests: '3', failures: '1', errors: '0' });
    const [first, second] = all(root, 'testsuite');
    expect(first!.attributes).toMatchObject({ name: 'recordings/run.ndjson', tests: '3', failures: '1', errors: '0', skipped: '1' });
    expect(second!.attributes).toMatchObject({ name: 'second.db', tests: '0', failures: '0' });
    const cases = all(root, 'testcase');
    expect(cases.map((c) => c.children.map((x) => x.name))).toEqual([[], ['failure', 'system-out'], ['skipped']]);
    const failure = cases[1]!.children[0]!;
    expect(failure.attributes.type).toBe('unused');
    expect(failure.attributes.message).toBe('no client asked for this recorded exchange (and 1 more)');
  });

  it('keeps markup, quotes, tabs and line breaks exactly, and writes what XML 1.0 forbids visibly', () => {
    const xml = renderJunit(sample());
    // Nothing XML 1.0 forbids is written, raw or as a reference.
    expect(xml).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|&#(x0*[0-8bcef]|x0*1[0-9a-f]|0*([0-8]|1[1-2]|1[4-9]|2[0-9]|3[01]));/i);
    const visible = 'a "quoted" <tag> & \'apostrophe\'\tTAB\nnew line\r\nCRLF ]]> end \\u0001\\u001b[31m \\ud800 lone \\ufffe 😀';
    const root = parseXml(xml);
    const cases = all(root, 'testcase');
    expect(cases[1]!.attributes.name).toBe(`GET /x${visible} (#2)`);
    expect(all(root, 'property').find((p) => p.attributes.name === 'odd')!.attributes.value).toBe(visible);
    const failure = cases[1]!.children[0]!;
    // The CDATA text, its `]]>` split over two sections, reads back whole.
    expect(failure.text).toBe(['unused: no client asked for this recorded exchange', `miss: ${visible}`, `  ${visible}`, '  ]]>]]>'].join('\n'));
    expect(cases[1]!.children[1]!.text).toBe('warning x: noted ]]>');
  });
});
