/**
 * examples/vitest-record-modes, the README's record-modes setup, run for real: copied into a project
 * that has the packed agent-proxy and vitest installed. The first `npx vitest run` records the
 * stand-in agent (mode once); with the agent gone, AGENT_PROXY_MODE=replay replays it and fails the
 * run on a request the recording cannot answer.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventType, type BaseEvent, type RunAgentInput } from '@ag-ui/core';
import { REPO } from '../cli/run-cli.js';
import { startAguiAgent } from '../support/agui-agent.js';
import { installPackedProject, projectEnv, type PackedProject } from './packed-project.js';

const EXAMPLE = join(REPO, 'examples/vitest-record-modes');

let project: PackedProject;

beforeAll(async () => {
  project = await installPackedProject({ extraDependencies: ['vitest'] });
});

afterAll(() => project?.remove());

/** What the example's test expects the agent to say. */
function sunny(input: RunAgentInput): BaseEvent[] {
  return [
    { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId },
    { type: EventType.TEXT_MESSAGE_START, messageId: 'm1', role: 'assistant' },
    { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'm1', delta: 'It is sunny in Paris.' },
    { type: EventType.TEXT_MESSAGE_END, messageId: 'm1' },
    { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId },
  ] as BaseEvent[];
}

/**
 * `vitest run` in the project, without blocking this process (the stand-in agent lives here): through
 * npx, as the README says, or the project's own bin that npx runs, without npx's ~0.7 s of CPU (npx
 * itself is tested once here and in packed-install).
 */
function vitest(env: NodeJS.ProcessEnv, through: 'npx' | 'bin' = 'bin'): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const [file, args] = through === 'npx' ? ['npx', ['vitest', 'run']] : [join(project.dir, 'node_modules/.bin/vitest'), ['run']];
    const child = spawn(file, args, { cwd: project.dir, env: projectEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output }));
  });
}

describe('the vitest record-modes example', () => {
  it('is what the README shows, word for word', () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    expect(readme).toContain(`// test/agent-fixture.ts\n${readFileSync(join(EXAMPLE, 'test/agent-fixture.ts'), 'utf8')}\`\`\``);
  });

  it('records on the first run, then AGENT_PROXY_MODE=replay replays without the agent and fails on a miss', async () => {
    for (const entry of ['vitest.config.ts', 'test']) cpSync(join(EXAMPLE, entry), join(project.dir, entry), { recursive: true });
    const recording = join(project.dir, 'fixtures/agent-run.ndjson');
    rmSync(join(project.dir, 'fixtures'), { recursive: true, force: true });

    // CI without the recording: replay only is refused, nothing is recorded.
    const missing = await vitest({ AGENT_PROXY_MODE: 'replay', AGENT_URL: 'http://127.0.0.1:9' });
    expect(missing.status).not.toBe(0);
    expect(missing.output).toContain('agent-run.ndjson does not exist, and mode replay (AGENT_PROXY_MODE) only replays');
    expect(existsSync(recording)).toBe(false);

    const agent = await startAguiAgent({ script: sunny });
    const recorded = await vitest({ AGENT_PROXY_MODE: '', AGENT_URL: agent.url }, 'npx').finally(() => agent.close());
    expect(recorded.status, recorded.output).toBe(0);
    expect(recorded.output).toMatch(/Tests\s+1 passed/);
    expect(agent.requests).toHaveLength(1);
    expect(readFileSync(recording, 'utf8')).toMatch(/^\{"type":"recording","format":"agent-proxy\/ndjson"/);

    // The agent is gone: only the recording can answer.
    const replayed = await vitest({ AGENT_PROXY_MODE: 'replay', AGENT_URL: agent.url });
    expect(replayed.status, replayed.output).toBe(0);
    expect(replayed.output).toMatch(/Tests\s+1 passed/);

    writeFileSync(
      join(project.dir, 'test/unrecorded.test.ts'),
      `import { inject, it } from 'vitest';\nit('asks for more', async () => { await fetch(inject('agentUrl') + '/agent/unrecorded'); });\n`,
    );
    const missed = await vitest({ AGENT_PROXY_MODE: 'replay', AGENT_URL: agent.url });
    expect(missed.status).not.toBe(0);
    expect(missed.output).toContain('fixture (mode replay, strict: true): 1 miss, 0 recorded exchanges unused');
    expect(agent.requests).toHaveLength(1);
  });
});
