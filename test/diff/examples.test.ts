/**
 * recordings/examples/: the example recordings committed as NDJSON work with the CLI straight after
 * install: `proxy show` summarises them and `proxy replay` serves them.
 *
 * Regenerate them (after `npm run build`) with:
 *   MAKE_EXAMPLES=1 npx vitest run test/diff/examples.test.ts
 */
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_INPUT, EXAMPLES, EXAMPLES_DIR, makeExamples } from '../../scripts/make-examples.js';
import { runBatch } from '../cli/cli-batch.js';
import { BIN, REPO, runCli } from '../cli/run-cli.js';
import { onCleanup, useCleanups } from './diff-helpers.js';
import { within } from '../support/waits.js';
import { scratch } from '../support/temp-dir.js';
import { importNdjsonText, isNdjsonRecordingText } from '../../src/store/ndjson-import.js';

useCleanups();

const agui = join(EXAMPLES_DIR, EXAMPLES.agui);
const pi = join(EXAMPLES_DIR, EXAMPLES.pi);

beforeAll(async () => {
  if (process.env.MAKE_EXAMPLES === '1') await makeExamples();
}, 60_000);

interface Replaying {
  url: string;
  stop(): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** `proxy replay <file> --listen 0 --timing none` as a child; resolves once it prints where it listens. */
function replay(file: string): Promise<Replaying> {
  const child = spawn(process.execPath, [BIN, 'replay', file, '--listen', '0', '--timing', 'none'], { cwd: REPO, env: { ...process.env, NO_COLOR: '1', AGENT_PROXY_SCHEMAS: '' } });
  onCleanup(() => void child.kill('SIGKILL'));
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return within(
    new Promise((resolve, reject) => {
      void exited.then(() => reject(new Error(`replay exited early: ${stdout} ${stderr}`)));
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
        const nl = stdout.indexOf('\n');
        if (nl < 0) return;
        resolve({
          url: stdout.slice(0, nl).replace('listening on ', ''),
          async stop() {
            child.kill('SIGINT');
            const code = await exited;
            return { code, stdout, stderr };
          },
        });
      });
    }),
    'the replay to print where it listens',
  );
}

describe('recordings/examples', () => {
  it('are small recordings that import reads as the NDJSON text form, whole', () => {
    for (const file of [agui, pi]) {
      expect(statSync(file).size).toBeLessThan(100 * 1024);
      const text = readFileSync(file, 'utf8');
      expect(isNdjsonRecordingText(text), file).toBe(true);
      const totals = importNdjsonText(text, scratch('agent-proxy-examples-').file('imported.db'), { file });
      const messageLines = text.split('\n').filter((line) => line.startsWith('{"type":"message"')).length;
      expect(messageLines, file).toBeGreaterThan(0);
      expect(totals.messages, file).toBe(messageLines);
    }
  });

  it('proxy show: the AG-UI run with its one invalid event, and the Pi daemon session', async () => {
    // Three reads in one batch (the CLI's main() run once for each), without a run as a process of its own:
    // the examples' replays below and the diff are processes, and test/cli/cli-batch.test.ts compares the two ways.
    const [shown, messages, session] = await runBatch([['show', agui], ['show', agui, '--exchange', '1'], ['show', pi]], { real: [] });
    expect(shown.stderr).toBe('');
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/#1\s+sse\/agui\s+POST \/agent\s+200\s+\d+\s+1 invalid/);
    expect(shown.stdout).toMatch(/#2\s+http\s+GET \/health\s+200/);

    expect(messages.code).toBe(0);
    expect(messages.stdout).toContain('TOOL_CALL_ARGS');

    expect(session.stderr).toBe('');
    expect(session.code).toBe(0);
    expect(session.stdout).toMatch(/http\/pi-rest\s+GET \/v1\/capabilities\s+200/);
    expect(session.stdout).toMatch(/http\/pi-rest\s+POST \/v1\/session\s+202/);
    expect(session.stdout).toMatch(/ws\/pi-daemon-rpc\s+GET \/v1\/session\/agent-a\/rpc\s+101\s+\d+\s+valid(, \d+ unchecked)?\s/);
  });

  it('proxy replay serves the AG-UI run for a new thread and run', async () => {
    const server = await replay(agui);
    const res = await fetch(`${server.url}/agent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ ...EXAMPLE_INPUT, threadId: 'thread-new', runId: 'run-new' }),
    });
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain('"type":"RUN_FINISHED"');
    expect(body).toContain('"runId":"run-new"');
    const done = await server.stop();
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/1 served, 0 misses/);
  });

  it('proxy replay serves the Pi daemon REST calls', async () => {
    const server = await replay(pi);
    const res = await fetch(`${server.url}/v1/capabilities`, { headers: { authorization: 'Bearer test-token' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toBeTypeOf('object');
    const done = await server.stop();
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/1 served, 0 misses/);
  });

  it('diff an example against itself: equal (exit 0)', async () => {
    const cli = await runCli(['diff', pi, pi]);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain('equal after normalization');
  });
});
