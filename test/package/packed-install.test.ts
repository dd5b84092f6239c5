/**
 * `npm pack` installed into an empty project: the CLI (`npx agent-proxy`, record, show, replay,
 * view, demo) and the API (`import { startReplay } from 'agent-proxy'`) work from there, with
 * nothing of this repository but the tarball and the dependencies it declares.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAguiAgent, type AguiAgent } from '../support/agui-agent.js';
import { postRun, runInput } from '../record/record-helpers.js';
import { runCli, spawnCli } from '../cli/run-cli.js';
import { installPackedProject, MANIFEST, projectEnv, type PackedProject } from './packed-project.js';

let project: PackedProject;
let agent: AguiAgent;

beforeAll(async () => {
  // @types/node as any TypeScript project on Node has it; nothing else of this repository's devDependencies.
  project = await installPackedProject({ extraDependencies: ['@types/node'] });
  agent = await startAguiAgent();
});

afterAll(async () => {
  await agent?.close();
  project?.remove();
});

/** The installed CLI as a long-running child in the project folder. */
const spawnInstalled = (args: string[]) => spawnCli(args, projectEnv(), undefined, { bin: project.bin, cwd: project.dir });

async function stop(cli: ReturnType<typeof spawnInstalled>): Promise<number | null> {
  cli.child.kill('SIGINT');
  return (await cli.exited).code;
}

describe('the packed package, installed into a new project', () => {
  it('ships what runs (the CLI, its workers, the inspector page, the schemas with their license) and nothing of the tests', () => {
    for (const file of [
      'package.json',
      'README.md',
      'bin/agent-proxy.js',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/cli/main.js',
      'dist/bundle/main.cjs',
      'dist/record/worker/recording-worker.js',
      'dist/diff/scan-worker.js',
      'dist/ui/web/app.js',
      'schemas/ag-ui.schema.json',
      'schemas/pi-daemon-session-api.schema.json',
      ...['dashboard-api', 'dashboard-session-draft', 'extension-view', 'schedule', 'protocol', 'protocol-v2', 'tool-adapter'].map((name) => `schemas/${name}.schema.json`),
      'schemas/LICENSE.pi-daemon',
      'schemas/README.md',
    ]) {
      expect(project.files).toContain(file);
    }
    // A git install has no dist/ until npm runs prepare, with the devDependencies (tsc) installed.
    expect(MANIFEST.scripts.prepare).toBe('npm run build');
    const unwanted = project.files.filter((f) => /^(src|test|examples|recordings|bench|scripts|docs|\.ci)\/|\.map$|^tsconfig|^vitest/.test(f));
    expect(unwanted).toEqual([]);
  });

  it('runs as npx agent-proxy', () => {
    const version = project.run('npx', ['agent-proxy', '--version']);
    expect(version.stderr).toBe('');
    expect(version.stdout.trim()).toBe(MANIFEST.version);
    // The rest through the bin npx just ran (npm exec costs ~0.5 s of CPU a run on top of the CLI's own).
    const help = project.run(project.bin, ['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: agent-proxy /);
  });

  it('records a run with verdicts from the shipped schemas, shows it and replays it strictly', async () => {
    const recorder = spawnInstalled(['record', '--target', agent.url, '--listen', '0', '--out', 'run.db', '--quiet']);
    const proxyUrl = (await recorder.waitForLine(/^listening on /)).split(' ')[2];
    const recorded = await postRun(`${proxyUrl}/agent`);
    expect(recorded.status).toBe(200);
    expect(await recorded.text()).toContain('RUN_FINISHED');
    expect(await stop(recorder)).toBe(0);

    // Every message judged valid against the schema shipped in schemas/ (without it they would be unchecked).
    const shown = await runCli(['show', 'run.db', '--exchange', '1', '--json'], { bin: project.bin, cwd: project.dir, env: projectEnv() });
    expect(shown.code).toBe(0);
    const exchange = JSON.parse(shown.stdout) as { exchange: { protocol: string }; messages: Array<{ status: string; schemaRef: string | null }> };
    expect(exchange.exchange.protocol).toBe('agui');
    expect(exchange.messages.length).toBeGreaterThan(2);
    for (const m of exchange.messages) expect(m).toMatchObject({ status: 'valid', schemaRef: expect.stringMatching(/^https:\/\/ag-ui\.com\/spec\/draft\/schema\.json#/) });

    const replay = spawnInstalled(['replay', 'run.db', '--listen', '0', '--timing', 'none', '--strict']);
    const replayUrl = (await replay.waitForLine(/^listening on /)).split(' ')[2];
    const replayed = await postRun(`${replayUrl}/agent`, {}, runInput('thread-new', 'run-new'));
    expect(replayed.status).toBe(200);
    const body = await replayed.text();
    expect(body).toContain('"threadId":"thread-new"');
    expect(body).toContain('RUN_FINISHED');
    expect(await stop(replay)).toBe(0);
  });

  // Shows run.db, recorded by the test above.
  it('serves the inspector page and its scripts', async () => {
    const view = spawnInstalled(['view', 'run.db', '--listen', '0']);
    const url = (await view.waitForLine(/^inspector on /)).split(' ')[2];
    const page = await fetch(url);
    expect(page.status).toBe(200);
    const html = await page.text();
    const script = /<script[^>]+src="([^"]+)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const js = await fetch(new URL(script!, url));
    expect(js.status).toBe(200);
    expect((await js.text()).length).toBeGreaterThan(0);
    expect(await stop(view)).toBe(0);
  });

  // Serves run.db, recorded by the test above.
  it("is a test suite's fixture server through the API: import { startReplay, strictFailure } from 'agent-proxy'", () => {
    writeFileSync(
      join(project.dir, 'fixture.mjs'),
      `import { startReplay, strictFailure } from 'agent-proxy';
const replay = await startReplay({ recording: 'run.db', listen: 0, timing: 'none', strict: true });
const response = await fetch(replay.url + '/agent', {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
  body: ${JSON.stringify(JSON.stringify(runInput('t-api', 'r-api')))},
});
const body = await response.text();
const missed = await fetch(replay.url + '/not-recorded');
const summary = await replay.close();
console.log(JSON.stringify({ status: response.status, finished: body.includes('RUN_FINISHED'), echoed: body.includes('"runId":"r-api"'), missed: missed.status, ok: summary.ok, failure: strictFailure(summary) }));
`,
    );
    const result = project.run(process.execPath, ['fixture.mjs']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const out = JSON.parse(result.stdout) as { status: number; finished: boolean; echoed: boolean; missed: number; ok: boolean; failure: string };
    expect(out).toMatchObject({ status: 200, finished: true, echoed: true, missed: 404, ok: false });
    expect(out.failure.split('\n')).toEqual(['replay (strict: true): 1 miss, 0 recorded exchanges unused', expect.stringMatching(/^  miss: GET \/not-recorded matches no recorded exchange/)]);
  });

  it('runs the demo, whose next steps use npx agent-proxy, show the inspector and work as printed', () => {
    // The bin npx runs (the test above runs npx itself); the printed next step goes through npx, as printed.
    const demo = project.run(project.bin, ['demo', '--dir', 'demo']);
    expect(demo.status).toBe(0);
    const next = demo.stdout.slice(demo.stdout.indexOf('5/5'));
    expect(next).toContain('npx agent-proxy view demo/run-1.db ');
    expect(next).not.toContain('bin/');
    const show = next.split('\n').find((l) => l.includes(' show ') && l.includes('--exchange 1'))!;
    const shown = project.run('/bin/sh', ['-c', show.trim()]);
    expect(shown.stderr).toBe('');
    expect(shown.status).toBe(0);
    expect(shown.stdout).toContain('tool-call-args-not-started');
  });

  it('its declarations type-check in a strict consumer with skipLibCheck: false and no @types of our devDependencies', () => {
    // What the declarations import must resolve from the package's own dependencies: a type from
    // @types/better-sqlite3 (or any other devDependency) is an error here, in node_modules/agent-proxy.
    expect(existsSync(join(project.dir, 'node_modules/@types/better-sqlite3'))).toBe(false);
    expect(existsSync(join(project.dir, 'node_modules/@types/ws'))).toBe(false);
    writeFileSync(
      join(project.dir, 'tsconfig.json'),
      JSON.stringify({
        // Every declaration file is checked but TypeScript's own lib files (lib.dom.d.ts and the
        // like: half of the check's ~10 s of CPU, and nothing of ours). A clash of ours with a global
        // of theirs is still reported, at our declaration: the libs come first in the program.
        compilerOptions: { strict: true, skipLibCheck: false, skipDefaultLibCheck: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: ['node'] },
        files: ['consumer.ts'],
      }),
    );
    writeFileSync(
      join(project.dir, 'consumer.ts'),
      `import {
  diffRecordingFiles, openRecording, ProxyError, startRecorder, startReplay, strictFailure, validateInput, readInput, SchemaRegistry,
  type DiffReport, type ErrorCode, type FindingFilter, type FindingListRow, type MessageRow, type RecorderOptions, type ReplayOptions,
  type ReplaySummary, type RunningReplay, type ValidationReport,
} from 'agent-proxy';

export async function fixture(recording: string): Promise<string | undefined> {
  const options: ReplayOptions = { recording, listen: 0, timing: 'none', strict: true };
  const replay: RunningReplay = await startReplay(options);
  const summary: ReplaySummary = await replay.close();
  return summary.ok ? undefined : strictFailure(summary);
}

export async function record(target: string): Promise<string> {
  const options: RecorderOptions = { target, listen: 0, out: 'run.db' };
  const recorder = await startRecorder(options);
  await recorder.close();
  return recorder.url;
}

export function errors(file: string): FindingListRow[] {
  const reader = openRecording(file);
  const filter: FindingFilter = { severity: 'error' };
  const rows = [...reader.findings(filter)];
  const first: MessageRow | undefined = reader.messages(1)[0];
  reader.close();
  return first === undefined ? [] : rows;
}

export function judged(file: string): ValidationReport {
  return validateInput(readInput(file), SchemaRegistry.load());
}

export function changed(a: string, b: string): boolean {
  const report: DiffReport = diffRecordingFiles(a, b, { semantic: true });
  return !report.equal;
}

export function codeOf(error: unknown): ErrorCode | undefined {
  return error instanceof ProxyError ? error.code : undefined;
}
`,
    );
    // What `tsc -p tsconfig.json` reports, through the compiler's API in this process, but for the
    // files of @types/node and undici-types: like TypeScript's own libs, they are the consumer's, and
    // checking them was ~2 s of the ~5 s. Nothing checked merges into them (every file is a module
    // with no `declare global` or `declare module`), so an error of ours cannot be reported there alone.
    const config = ts.getParsedCommandLineOfConfigFile(join(project.dir, 'tsconfig.json'), {}, {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    });
    if (!config) throw new Error('tsconfig.json could not be read');
    const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
    const consumers = (file: ts.SourceFile) => program.isSourceFileDefaultLibrary(file) || /[/\\]node_modules[/\\](@types[/\\]node|undici-types)[/\\]/.test(file.fileName);
    const checked = program.getSourceFiles().filter((file) => !consumers(file));
    expect(checked.map((file) => file.fileName)).toContain(join(project.dir, 'node_modules/agent-proxy/dist/index.d.ts'));
    const merging = checked.filter((file) => !ts.isExternalModule(file) || file.statements.some((s) => ts.isModuleDeclaration(s) && (ts.isStringLiteral(s.name) || s.name.text === 'global')));
    expect(merging.map((file) => file.fileName)).toEqual([]);
    const diagnostics = [
      ...config.errors,
      ...program.getOptionsDiagnostics(),
      ...program.getGlobalDiagnostics(),
      ...program.getSyntacticDiagnostics(),
      ...checked.flatMap((file) => program.getSemanticDiagnostics(file)),
    ];
    expect(ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => project.dir, getNewLine: () => '\n' })).toBe('');
  });
});
