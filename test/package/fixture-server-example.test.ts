/**
 * examples/vitest-fixture-server, the fixture-server example of docs/replay.md, run for real: copied into a
 * project that has the packed agent-proxy and vitest installed, then `npx vitest run` there. It
 * passes as shipped; a request the recording cannot answer, or a recorded exchange no test asks
 * for, fails the run through the strict globalSetup.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../cli/run-cli.js';
import { installPackedProject, type PackedProject } from './packed-project.js';

const EXAMPLE = join(REPO, 'examples/vitest-fixture-server');

let project: PackedProject;

beforeAll(async () => {
  project = await installPackedProject({ extraDependencies: ['vitest'] });
});

afterAll(() => project?.remove());

/** A fresh copy of the example's files into the project. */
function copyExample(): void {
  for (const entry of ['vitest.config.ts', 'test', 'fixtures']) {
    rmSync(join(project.dir, entry), { recursive: true, force: true });
    cpSync(join(EXAMPLE, entry), join(project.dir, entry), { recursive: true });
  }
}

/**
 * `vitest run` in the project: through npx, as the example says, or the project's own bin that npx
 * runs, without npx's ~0.7 s of CPU (npx itself is tested once here and in packed-install).
 */
const vitest = (through: 'npx' | 'bin' = 'bin') => (through === 'npx' ? project.run('npx', ['vitest', 'run']) : project.run(join(project.dir, 'node_modules/.bin/vitest'), ['run']));

describe('the vitest fixture-server example', () => {
  it('is what docs/replay.md shows, word for word', () => {
    const page = readFileSync(join(REPO, 'docs/replay.md'), 'utf8');
    expect(page).toContain(`// test/agent-fixture.ts\n${readFileSync(join(EXAMPLE, 'test/agent-fixture.ts'), 'utf8')}\`\`\``);
  });

  it('passes as shipped: the tests run against the recording served by globalSetup', () => {
    copyExample();
    const run = vitest('npx');
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Tests\s+1 passed/);
  });

  it('fails the run when a test asks for something the recording does not hold', () => {
    copyExample();
    // The test itself passes: only the strict teardown can fail the run.
    writeFileSync(
      join(project.dir, 'test/unrecorded.test.ts'),
      `import { inject, it } from 'vitest';\nit('asks for more', async () => { await fetch(inject('agentUrl') + '/agent/unrecorded'); });\n`,
    );
    const run = vitest();
    expect(run.status).not.toBe(0);
    expect(run.stdout + run.stderr).toContain('replay (strict: true): 1 miss, 0 recorded exchanges unused');
    expect(run.stdout + run.stderr).toContain('miss: GET /agent/unrecorded matches no recorded exchange; nearest is exchange 1 (POST /agent)');
  });

  it('fails the run when no test asks for a recorded exchange', () => {
    copyExample();
    writeFileSync(join(project.dir, 'test/ask-agent.test.ts'), `import { it } from 'vitest';\nit('asks nothing', () => {});\n`);
    const run = vitest();
    expect(run.status).not.toBe(0);
    expect(run.stdout + run.stderr).toContain('replay (strict: true): 0 misses, 1 recorded exchange unused');
    expect(run.stdout + run.stderr).toContain('unused: #1 POST /agent');
  });
});
