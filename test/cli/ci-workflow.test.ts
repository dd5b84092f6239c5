/**
 * docs/ci.md, run as written: the development block records and exports a golden run, then every
 * `run:` of the example workflow runs in order under bash as GitHub runs it (`-eo pipefail`), with
 * GITHUB_ACTIONS and GITHUB_STEP_SUMMARY set, against the AG-UI stand-in agent. Only the page's two
 * placeholders are stood in for: `npm run start:agent` (the test has started the agent at
 * $AGENT_URL) and `npm run e2e` (a client that posts one run to $AGENT_URL); `npx agent-proxy` is
 * this checkout's CLI.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN } from './run-cli.js';
import { startAguiAgent } from '../support/agui-agent.js';
import { scratch } from '../support/temp-dir.js';
import { useCleanups, onCleanup } from '../support/cleanups.js';
import { within } from '../support/waits.js';
import { useJunitSchema } from '../support/junit-schema.js';
import { gfmTables } from '../support/gfm-tables.js';
import { parseXml, type XmlElement } from '../support/xml.js';

useCleanups();
/** Every JUnit report the workflow writes, checked against junit-10.xsd by libxml2 after the test. */
const expectValidJunit = useJunitSchema();

const DOC = readFileSync(fileURLToPath(new URL('../../docs/ci.md', import.meta.url)), 'utf8');

interface Step {
  name: string;
  run: string;
}

/** The `run:` steps of the page's workflow, in order; `uses:` steps are GitHub's own and are left out. */
function workflowSteps(): Step[] {
  const yaml = /```yaml\n([\s\S]*?)\n```/.exec(DOC)![1]!.split('\n');
  const steps: Step[] = [];
  let name = '';
  for (let i = 0; i < yaml.length; i++) {
    const line = yaml[i]!;
    const named = /^\s*- name: (.*)$/.exec(line);
    if (named) name = named[1]!;
    const run = /^(\s*)(?:- )?run: (.*)$/.exec(line);
    if (!run) continue;
    if (run[2] !== '|') {
      steps.push({ name: name || run[2]!, run: run[2]! });
    } else {
      const body: string[] = [];
      const indent = run[1]!.length;
      for (i++; i < yaml.length && (yaml[i]!.trim() === '' || yaml[i]!.search(/\S/) > indent); i++) body.push(yaml[i]!);
      i--;
      const strip = Math.min(...body.filter((l) => l.trim() !== '').map((l) => l.search(/\S/)));
      steps.push({ name, run: body.map((l) => l.slice(strip)).join('\n') });
    }
    name = '';
  }
  return steps;
}

/** The development block: the first `sh` block of section 1. */
function developmentBlock(): string {
  return /## 1\. In development[\s\S]*?```sh\n([\s\S]*?)\n```/.exec(DOC)![1]!;
}

/** A folder with `npx` (this checkout's CLI for `npx agent-proxy`) and `npm` (the placeholders) first on PATH. */
function toolbox(dir: string): string {
  const bin = `${dir}/fake-bin`;
  mkdirSync(bin);
  writeFileSync(`${bin}/npx`, `#!/bin/sh\nif [ "$1" = agent-proxy ]; then shift; exec "${process.execPath}" "${BIN}" "$@"; fi\necho "npx $*: not in this test" >&2; exit 127\n`);
  writeFileSync(
    `${dir}/client.mjs`,
    `const input = { threadId: 'thread-' + crypto.randomUUID(), runId: 'run-' + crypto.randomUUID(), messages: [{ id: crypto.randomUUID(), role: 'user', content: 'Hi' }], tools: [], context: [], state: {}, forwardedProps: {} };
const res = await fetch(process.env.AGENT_URL + '/agent', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify(input) });
await res.text();
if (!res.ok) process.exit(1);
`,
  );
  writeFileSync(
    `${bin}/npm`,
    `#!/bin/sh\ncase "$*" in\n  ci) exit 0 ;;\n  "run start:agent") exit 0 ;;\n  "run e2e") exec "${process.execPath}" "${dir}/client.mjs" ;;\nesac\necho "npm $*: not in this test" >&2; exit 127\n`,
  );
  chmodSync(`${bin}/npx`, 0o755);
  chmodSync(`${bin}/npm`, 0o755);
  return bin;
}

/** Runs a script as GitHub runs a `run:` (bash -eo pipefail), in its own process group so nothing it started outlives the test. */
function runScript(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  onCleanup(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return within(new Promise((resolve) => child.on('close', (code) => resolve({ code, output }))), 'a step of docs/ci.md to finish');
}

describe('docs/ci.md', () => {
  it('its development block and every step of its workflow run as written, and write the reports it says', async () => {
    const dir = scratch();
    const agent = await startAguiAgent();
    onCleanup(() => agent.close());
    const summary = dir.file('step-summary.md');
    writeFileSync(summary, '');
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${toolbox(dir.dir)}:${process.env.PATH}`, AGENT_URL: agent.url, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary, NO_COLOR: '1', AGENT_PROXY_SCHEMAS: '' };
    delete env.FORCE_COLOR;

    const development = await runScript(developmentBlock(), dir.dir, env);
    expect(development.code, development.output).toBe(0);
    expect(existsSync(dir.file('recordings/golden.ndjson'))).toBe(true);

    const steps = workflowSteps();
    expect(steps.map((s) => s.name)).toEqual([
      'npm ci',
      'Redrive the golden run against the new build',
      'No error findings in the new run',
      'The client against the golden run, replayed',
      'Keep the new recording, and a page to read it',
    ]);
    for (const step of steps) {
      const done = await runScript(step.run, dir.dir, env);
      expect(done.code, `${step.name}:\n${done.output}`).toBe(0);
    }

    // What the upload step uploads is there, and every JUnit report is valid and passed.
    expect(existsSync(dir.file('ci.ndjson'))).toBe(true);
    // The page: our elements only, the AG-UI run's exchange listed with its verdict, its messages in its section.
    const page = parseXml(readFileSync(dir.file('ci.html'), 'utf8'));
    const elements = (el: XmlElement): XmlElement[] => [el, ...el.children.flatMap(elements)];
    expect(elements(page).some((e) => e.name === 'script')).toBe(false);
    const listed = elements(page).find((e) => e.name === 'table' && e.attributes.class === 'exchanges')!.children.slice(1);
    expect(listed.map((tr) => tr.children.slice(1, 3).map((td) => td.text))).toEqual([['sse/agui', 'POST /agent']]);
    expect(listed[0]!.children[5]!.text).toBe('valid');
    expect(elements(page).filter((e) => e.name === 'tr' && /^exchange-1-\d+$/.test(e.attributes.id ?? '')).length).toBeGreaterThan(3);
    for (const report of ['redrive', 'findings', 'replay']) {
      const xml = readFileSync(dir.file(`reports/${report}.xml`), 'utf8');
      expectValidJunit(report, xml);
      expect(xml).toMatch(/<testsuites name="agent-proxy \w+" tests="[1-9]\d*" failures="0" errors="0">/);
    }
    expect(readFileSync(dir.file('reports/redrive.md'), 'utf8')).toMatch(/^### agent-proxy redrive: ✅ /);
    const report = parseXml(readFileSync(dir.file('reports/redrive.html'), 'utf8'));
    expect(elements(report).find((e) => e.name === 'h1')!.text).toMatch(/^agent-proxy redrive: ✅ /);
    const headings = readFileSync(summary, 'utf8').split('\n').filter((l) => l.startsWith('### '));
    expect(headings).toEqual([expect.stringMatching(/^### agent-proxy redrive: ✅/), expect.stringMatching(/^### agent-proxy findings: ✅/), expect.stringMatching(/^### agent-proxy replay: ✅/)]);
    expect(gfmTables(readFileSync(summary, 'utf8'))).toHaveLength(3);
  });
});
