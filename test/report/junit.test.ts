/**
 * JUnit XML: valid against the JUnit schema CI systems read (the Jenkins xunit plugin's
 * junit-10.xsd, kept in test/fixtures/junit/ with its source and license), and every character of
 * recorded traffic either kept exactly or, where XML 1.0 cannot hold it, written visibly.
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { renderJunit } from '../../src/report/junit.js';
import { ciReport, type CiCase, type CiReport } from '../../src/report/ci-report.js';
import { parseXml, type XmlElement } from '../support/xml.js';
import { checkAgainstXsd } from '../support/xsd-check.js';

const XSD = fileURLToPath(new URL('../fixtures/junit/junit-10.xsd', import.meta.url));

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
  it('is valid against junit-10.xsd, with a suite per recording, a case per case, one failure per failed case', () => {
    const xml = renderJunit(sample());
    expect(checkAgainstXsd(xml, XSD)).toEqual([]);
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

  it('the schema check finds what the schema forbids, so a pass means something', () => {
    const xml = renderJunit(sample());
    expect(checkAgainstXsd(xml.replace(/<testsuite name="second.db" tests="0"/, '<testsuite name="second.db"'), XSD)).toEqual(['/testsuites/testsuite[1]: attribute tests is required']);
    expect(checkAgainstXsd(xml.replace('<testcase name="POST /agent (#1)" classname="agui"/>', '<testcase name="x" colour="red"/>'), XSD)).toEqual(['/testsuites/testsuite[0]/testcase[1]: attribute colour is not declared']);
    expect(checkAgainstXsd(xml.replace('<properties>', '<failure/><properties>'), XSD)[0]).toMatch(/<failure> is not allowed there in <testsuite>/);
    expect(checkAgainstXsd(xml.replace('</testsuites>', '<testcase name="stray"/></testsuites>'), XSD)[0]).toMatch(/<testcase> is not allowed there in <testsuites>/);
    expect(() => parseXml(xml.replace('(#1)', '(#1) \u0001'))).toThrow(/forbids/);
  });
});
