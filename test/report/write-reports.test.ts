/**
 * Where reports go: files replaced whole, `-` to the command's output, and `github` as GitHub
 * Actions takes it (workflow commands on the output, the job summary appended to the file
 * $GITHUB_STEP_SUMMARY names), or nothing and one notice outside it.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { writeReports, type ReportIo } from '../../src/report/write-reports.js';
import { ciReport } from '../../src/report/ci-report.js';
import { scratch } from '../support/temp-dir.js';
import { useCleanups } from '../support/cleanups.js';
import { gfmTables, cellText } from '../support/gfm-tables.js';

useCleanups();

const REPORT = ciReport('replay', [
  {
    name: 'rec|a.ndjson',
    file: 'rec|a.ndjson',
    properties: { strict: 'true' },
    cases: [
      { name: 'GET /x (#1)', classname: 'http', exchange: 1, failures: [{ kind: 'unused', title: 'unused', message: 'no client asked for this recorded exchange', details: [] }], notes: [] },
      { name: 'miss 1: POST /y|z', classname: 'replay', failures: [{ kind: 'miss', title: 'miss', message: 'POST /y|z matches no recorded exchange', details: [] }], notes: [] },
    ],
  },
]);

function io(env: NodeJS.ProcessEnv): ReportIo & { written: string[]; notices: string[] } {
  const written: string[] = [];
  const notices: string[] = [];
  return { env, out: (text) => written.push(text), notice: (line) => notices.push(line), written, notices };
}

describe('writeReports', () => {
  it('replaces a file whole, leaving nothing beside it, and writes - to the output', () => {
    const dir = scratch();
    writeFileSync(dir.file('r.json'), 'old');
    const sink = io({});
    writeReports(REPORT, [{ format: 'json', file: dir.file('r.json') }, { format: 'junit', file: '-' }], sink);
    expect(JSON.parse(readFileSync(dir.file('r.json'), 'utf8'))).toEqual(JSON.parse(JSON.stringify(REPORT)));
    expect(readdirSync(dir.dir)).toEqual(['r.json']);
    expect(sink.written).toHaveLength(1);
    expect(sink.written[0]).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="agent-proxy replay" tests="2" failures="2"/);
  });

  it('in GitHub Actions: the workflow commands on the output, the summary appended to $GITHUB_STEP_SUMMARY with tables that render', () => {
    const dir = scratch();
    const summary = dir.file('step-summary.md');
    writeFileSync(summary, '# earlier step\n');
    const sink = io({ GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary });
    writeReports(REPORT, [{ format: 'github' }], sink);
    expect(sink.written.join('').split('\n')).toEqual([
      '::error title=GET /x (#1)%3A unused,file=rec|a.ndjson::no client asked for this recorded exchange',
      '::error title=miss 1%3A POST /y|z%3A miss,file=rec|a.ndjson::POST /y|z matches no recorded exchange',
      '',
    ]);
    expect(sink.notices).toEqual([]);
    const text = readFileSync(summary, 'utf8');
    expect(text.startsWith('# earlier step\n### agent-proxy replay: ❌ 2 of 2 cases failed\n')).toBe(true);
    const [recordings, failures] = gfmTables(text);
    expect(recordings!.rows.map((r) => r.map(cellText))).toEqual([['rec|a.ndjson', '2', '0', '2', '0']]);
    expect(failures!.rows.map((r) => r.map(cellText))).toEqual([
      ['rec|a.ndjson', 'GET /x (#1)', 'unused', 'no client asked for this recorded exchange'],
      ['rec|a.ndjson', 'miss 1: POST /y|z', 'miss', 'POST /y|z matches no recorded exchange'],
    ]);
  });

  it('outside GitHub Actions: github alone writes nothing and says so; github=<file> writes the commands there', () => {
    const dir = scratch();
    const sink = io({ GITHUB_ACTIONS: 'false', GITHUB_STEP_SUMMARY: dir.file('never.md') });
    writeReports(REPORT, [{ format: 'github' }], sink);
    expect(sink.written).toEqual([]);
    expect(existsSync(dir.file('never.md'))).toBe(false);
    expect(sink.notices).toEqual(['agent-proxy: --report github: not running in GitHub Actions (GITHUB_ACTIONS is not true), so nothing is written; --report github=<file> writes the workflow commands anyway']);
    writeReports(REPORT, [{ format: 'github', file: dir.file('commands.txt') }], io({}));
    expect(readFileSync(dir.file('commands.txt'), 'utf8')).toMatch(/^::error title=GET \/x \(#1\)%3A unused,/);
  });

  it('makes a missing folder; a file that cannot be written is one error naming it', () => {
    const dir = scratch();
    writeReports(REPORT, [{ format: 'junit', file: dir.file('reports/ci/r.xml') }], io({}));
    expect(readFileSync(dir.file('reports/ci/r.xml'), 'utf8')).toMatch(/^<\?xml /);
    writeFileSync(dir.file('plain'), '');
    expect(() => writeReports(REPORT, [{ format: 'junit', file: dir.file('plain/r.xml') }], io({}))).toThrow(`--report ${dir.file('plain/r.xml')}: cannot make its folder ${dir.file('plain')}: EEXIST`);
    mkdirSync(dir.file('taken.xml'));
    expect(() => writeReports(REPORT, [{ format: 'junit', file: dir.file('taken.xml') }], io({}))).toThrow(`--report ${dir.file('taken.xml')}: cannot write: EISDIR`);
    expect(readdirSync(dir.dir).sort()).toEqual(['plain', 'reports', 'taken.xml']);
  });
});
