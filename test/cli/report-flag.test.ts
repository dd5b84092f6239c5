/**
 * `--report` on the commands, through the built CLI: diff, findings, and a strict replay each write
 * their CI report (JUnit valid against junit-10.xsd), GitHub's workflow commands and job summary
 * when GITHUB_ACTIONS is set, and a bad value is one line and exit 2 before anything runs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from './run-cli.js';
import { AGUI_EXAMPLE } from './cli-fixtures.js';
import { writeNdjsonRecording } from '../support/ndjson-recording.js';
import { scratch } from '../support/temp-dir.js';
import { useCleanups, onCleanup } from '../support/cleanups.js';
import { within } from '../support/waits.js';
import { useJunitSchema } from '../support/junit-schema.js';
import { parseXml, type XmlElement } from '../support/xml.js';
import { gfmTables } from '../support/gfm-tables.js';

useCleanups();
/** Every JUnit report below, checked against junit-10.xsd by libxml2 after the file's tests. */
const expectValidJunit = useJunitSchema();

const get = (path: string, body: unknown) => ({ transport: 'http' as const, method: 'GET', path, status: 200, responseHeaders: { 'content-type': 'application/json' }, messages: [{ sender: 'server' as const, json: body }] });

function cases(xml: string): Array<[string, string[]]> {
  const all = (el: XmlElement): XmlElement[] => [...(el.name === 'testcase' ? [el] : []), ...el.children.flatMap(all)];
  return all(parseXml(xml)).map((c) => [c.attributes.name!, c.children.map((x) => `${x.name}${x.attributes.type ? ` ${x.attributes.type}` : ''}`)]);
}

describe('--report', () => {
  it('diff: a JUnit file valid against junit-10.xsd, the JSON model and the HTML page; markdown=- takes the place of the diff on stdout', async () => {
    const dir = scratch();
    // What the traffic may hold: markup, CDATA's end, control characters, a lone surrogate, a long text.
    const odd = `</failure> ]]> & "q" \u0001\u001b[31m \ud800 ${'y'.repeat(100_000)}`;
    const a = writeNdjsonRecording([get('/v1/session/s1', { name: 'a' }), get('/health', { ok: true }), get('/odd', { text: '' })], 'a.ndjson');
    const b = writeNdjsonRecording([get('/v1/session/s1', { name: 'b' }), get('/health', { ok: true }), get('/odd', { text: odd })], 'b.ndjson');
    const done = await runCli(['diff', a, b, '--report', `junit=${dir.file('diff.xml')}`, '--report', `json=${dir.file('diff.json')}`, '--report', `html=${dir.file('diff.html')}`, '--report', 'markdown=-']);
    expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 1, stderr: '' });
    expect(done.stdout).toMatch(/^### agent-proxy diff: ❌ 2 of 3 cases failed\n/);
    expect(gfmTables(done.stdout)).toHaveLength(2);
    const xml = readFileSync(dir.file('diff.xml'), 'utf8');
    expectValidJunit('diff', xml);
    // The odd text reached the report: markup escaped, the controls written visibly.
    expect(xml).toContain('\\u0001\\u001b[31m');
    expect(cases(xml)).toEqual([
      ['GET /v1/session/s1 (#1)', ['failure changed']],
      ['GET /health (#2)', []],
      ['GET /odd (#3)', ['failure changed']],
    ]);
    const json = JSON.parse(readFileSync(dir.file('diff.json'), 'utf8'));
    expect(json).toMatchObject({ format: 'agent-proxy/ci-report', version: 1, command: 'diff', ok: false, totals: { cases: 3, failed: 2 } });
    expect(json.suites[0].cases[0].failures[0].details).toEqual(['~ 1 ← response', '    /name: "a" → "b"']);
    // The HTML page: a row per case, with its result.
    const page = parseXml(readFileSync(dir.file('diff.html'), 'utf8'));
    const rows = (el: XmlElement): XmlElement[] => [...(el.name === 'tr' && /^suite-1-case-/.test(el.attributes.id ?? '') ? [el] : []), ...el.children.flatMap(rows)];
    expect(rows(page).map((tr) => [tr.children[0]!.text, tr.children[2]!.children[0]!.text])).toEqual([
      ['GET /v1/session/s1 (#1)', 'failed: changed'],
      ['GET /health (#2)', 'passed'],
      ['GET /odd (#3)', 'failed: changed'],
    ]);
  });

  it('findings in GitHub Actions: --report github writes ::error commands and appends the job summary', async () => {
    const dir = scratch();
    const summary = dir.file('summary.md');
    writeFileSync(summary, '');
    const done = await runCli(['findings', AGUI_EXAMPLE, '--fail-on', 'error', '--report', 'github', '--report', `junit=${dir.file('f.xml')}`], { env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary } });
    expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 1, stderr: '' });
    const commands = done.stdout.split('\n').filter((l) => l.startsWith('::'));
    expect(commands).toEqual([expect.stringMatching(/^::error title=POST \/agent \(#1\)%3A error tool-call-args-not-started,file=.*agui-sse-run\.ndjson::Cannot send 'TOOL_CALL_ARGS' event: .*%0A14 ← TOOL_CALL_ARGS at \/toolCallId$/)]);
    const [recordings, failures] = gfmTables(readFileSync(summary, 'utf8'));
    expect(recordings!.rows).toHaveLength(1);
    expect(failures!.rows.map((r) => r[2])).toEqual(['error tool-call-args-not-started']);
    const xml = readFileSync(dir.file('f.xml'), 'utf8');
    expectValidJunit('findings, an error finding', xml);
    expect(cases(xml)).toEqual([
      ['POST /agent (#1)', ['failure error tool-call-args-not-started']],
      ['GET /health (#2)', []],
    ]);
  });

  it('findings --exchange: a case for that exchange alone; junit=- takes the place of the list on stdout', async () => {
    const done = await runCli(['findings', AGUI_EXAMPLE, '--exchange', '2', '--fail-on', 'warning', '--report', 'junit=-']);
    expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 0, stderr: '' });
    expectValidJunit('findings --exchange, no failures', done.stdout);
    expect(cases(done.stdout)).toEqual([['GET /health (#2)', []]]);
  });

  it('a bad value is one line and exit 2, and nothing runs', async () => {
    const unknown = await runCli(['findings', AGUI_EXAMPLE, '--report', 'xml=r.xml']);
    expect(unknown).toEqual({ code: 2, stdout: '', stderr: "agent-proxy: --report 'xml=r.xml': unknown format 'xml' (expected junit, github, markdown, json, html, as <format>=<file>, e.g. junit=report.xml)\n" });
    const loose = await runCli(['replay', AGUI_EXAMPLE, '--listen', '0', '--report', 'junit=r.xml']);
    expect(loose).toEqual({ code: 2, stdout: '', stderr: 'agent-proxy: --report goes with --strict: the report is of what a strict replay fails for; add --strict\n' });
  });

  it('replay --strict: served exchanges pass, the unused one and the miss fail', async () => {
    const dir = scratch();
    const recording = writeNdjsonRecording([get('/a', { a: 1 }), get('/b', { b: 1 })], 'served.ndjson');
    const cli = spawnCli(['replay', recording, '--listen', '0', '--timing', 'none', '--strict', '--quiet', '--report', `junit=${dir.file('r.xml')}`]);
    onCleanup(() => void cli.child.kill('SIGKILL'));
    const url = (await cli.waitForLine(/^listening on /)).replace('listening on ', '');
    expect((await fetch(`${url}/a`)).status).toBe(200);
    expect((await fetch(`${url}/nope`)).status).toBe(404);
    cli.child.kill('SIGINT');
    const { code } = await within(cli.exited, 'the replay to exit');
    expect(code).toBe(1);
    const xml = readFileSync(dir.file('r.xml'), 'utf8');
    expectValidJunit('replay --strict', xml);
    expect(cases(xml)).toEqual([
      ['GET /a (#1)', []],
      ['GET /b (#2)', ['failure unused']],
      ['miss 1: GET /nope', ['failure miss']],
    ]);
  });

  it('replay --stdio --strict: a miss and the unused line fail the conversation; in GitHub Actions the commands go to stderr, stdout stays the protocol\'s', async () => {
    const dir = scratch();
    const line = (value: unknown) => JSON.stringify(value) + '\n';
    const command = (id: string) => ({ id, type: 'get_state' });
    const recording = writeNdjsonRecording(
      [{ transport: 'stdio', protocol: 'pi-rpc', messages: [command('c1'), { id: 'c1', type: 'response', command: 'get_state', success: true }, command('c2')].map((json, i) => ({ sender: i === 1 ? ('server' as const) : ('client' as const), json, raw: line(json) })) }],
      'stdio.ndjson',
    );
    const cli = spawnCli(['replay', '--stdio', recording, '--timing', 'none', '--strict', '--quiet', '--report', `junit=${dir.file('s.xml')}`, '--report', 'github'], { GITHUB_ACTIONS: 'true' });
    onCleanup(() => void cli.child.kill('SIGKILL'));
    cli.child.stdin.end(line({ id: 'c1', type: 'get_stat' }));
    const { code } = await within(cli.exited, 'the replay to exit');
    expect(code).toBe(1);
    expect(cli.stdout()).not.toContain('::');
    expect(cli.stderr()).toMatch(/^::error title=stdio conversation \(#1\)%3A miss,file=.*stdio\.ndjson::replay miss: line 1 /m);
    expect(cli.stderr()).toMatch(/^::error title=stdio conversation \(#1\)%3A unused lines,file=.*stdio\.ndjson::2 recorded client lines never came%0Arecorded line 1: /m);
    const xml = readFileSync(dir.file('s.xml'), 'utf8');
    expectValidJunit('replay --stdio --strict', xml);
    expect(cases(xml)).toEqual([['stdio conversation (#1)', ['failure miss']]]);
  });

  it('fixture --strict (replaying): the same report, under the fixture\'s name', async () => {
    const dir = scratch();
    const recording = writeNdjsonRecording([get('/a', { a: 1 }), get('/b', { b: 1 })], 'fixture.ndjson');
    const cli = spawnCli(['fixture', recording, '--mode', 'replay', '--listen', '0', '--timing', 'none', '--strict', '--quiet', '--report', `json=${dir.file('f.json')}`, '--report', `junit=${dir.file('f.xml')}`]);
    onCleanup(() => void cli.child.kill('SIGKILL'));
    const url = (await cli.waitForLine(/^listening on /)).replace('listening on ', '');
    expect((await fetch(`${url}/a`)).status).toBe(200);
    expect((await fetch(`${url}/b`)).status).toBe(200);
    cli.child.kill('SIGINT');
    const { code } = await within(cli.exited, 'the fixture to exit');
    expect(code, cli.stderr()).toBe(0);
    const report = JSON.parse(readFileSync(dir.file('f.json'), 'utf8'));
    expect(report).toMatchObject({ command: 'fixture', ok: true, totals: { cases: 2, failed: 0, skipped: 0 } });
    expect(report.suites[0].properties).toEqual({ strict: 'true' });
    expectValidJunit('fixture --strict, no failures', readFileSync(dir.file('f.xml'), 'utf8'));
  });
});
