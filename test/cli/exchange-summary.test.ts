/**
 * The numbers the CLI prints about an exchange agree wherever they appear: the live line of
 * `record`, the row of `show`, the head of `show --exchange`, and the served line of `replay`.
 * The built CLI in child processes, in front of the AG-UI stand-in.
 */
import { describe, expect, it } from 'vitest';
import { HttpAgent } from '@ag-ui/client';
import { fixturesAfterEach } from '../support/fixtures-after-each.js';
import { postRun, rawRequest, runInput } from '../record/record-helpers.js';
import { runBatch } from './cli-batch.js';
import { spawnCli, type CliProcess, type CliResult } from './run-cli.js';

const fixtures = fixturesAfterEach();

function cli(args: string[]): CliProcess {
  const child = spawnCli(args);
  fixtures.push(async () => {
    if (child.child.exitCode === null && child.child.signalCode === null) {
      child.child.kill('SIGKILL');
      await child.exited;
    }
  });
  return child;
}

/** `proxy record` in front of `target` into `out`; resolves with the process and its URL. */
async function recording(target: string, out: string, extra: string[] = []): Promise<{ r: CliProcess; url: string }> {
  const r = cli(['record', '--target', target, '--listen', '0', '--out', out, ...extra]);
  const url = /^listening on (\S+) ->/.exec(await r.waitForLine(/^listening on /))![1];
  return { r, url };
}

async function stop(p: CliProcess): Promise<void> {
  p.child.kill('SIGINT');
  expect(await p.exited).toEqual({ code: 0, signal: null });
}

/** `show <file> <args>` for each argument list, run in one process (test/cli/cli-batch.ts). */
function show(file: string, ...runs: string[][]): Promise<CliResult[]> {
  return runBatch(runs.map((args) => ['show', file, ...args]), { real: [] });
}

/** The row of exchange `id` in what `show` printed, split into its columns. */
function rowOf(shown: CliResult, id: number): string[] {
  expect(shown.code).toBe(0);
  const row = shown.stdout.split('\n').find((l) => l.startsWith(`#${id} `));
  expect(row, shown.stdout).toBeDefined();
  return row!.split(/ {2,}/);
}

describe('one verdict summary for an exchange', () => {
  it('an exchange no protocol could judge (GET /health) is "unchecked" on the live line, in show and in show --exchange', async () => {
    const agent = await fixtures.agui();
    const out = fixtures.scratch().file('health.db');
    const { r, url } = await recording(agent.url, out);
    expect((await rawRequest({ url }, 'GET', '/health')).status).toBe(200);
    expect(await r.waitForLine(/#1 GET \/health/)).toMatch(/ 200 http 1 msg unchecked \d+ms$/);
    await stop(r);

    const [listed, one, asJson] = await show(out, [], ['--exchange', '1'], ['--json']);
    expect(rowOf(listed, 1)).toEqual(['#1', 'http', 'GET /health', '200', '1', 'unchecked', 'complete', '-']);
    expect(one.stdout.split('\n').slice(0, 2)).toEqual(['#1 GET /health 200 http complete', '  1 message: unchecked; starts ' + one.stdout.split('; starts ')[1].split('\n')[0]]);
    const json = JSON.parse(asJson.stdout);
    expect(json.exchanges[0]).toMatchObject({ messages: 1, invalid: 0, unchecked: 1, verdict: 'unchecked' });
  });

  it('a run whose messages are all over --max-body is "unchecked", never "ok"', async () => {
    const agent = await fixtures.agui();
    const out = fixtures.scratch().file('max-body.db');
    const { r, url } = await recording(agent.url, out, ['--max-body', '30']);
    await (await postRun(`${url}/agent`)).text();
    const line = await r.waitForLine(/#1 POST \/agent/);
    await stop(r);

    const [listed, one] = await show(out, [], ['--exchange', '1']);
    const [, , , , messages, verdict] = rowOf(listed, 1);
    expect(Number(messages)).toBeGreaterThan(5);
    expect(verdict).toBe('unchecked');
    expect(line).toContain(` ${messages} msg unchecked `);
    expect(one.stdout.split('\n')[1]).toMatch(new RegExp(`^  ${messages} messages: unchecked; `));
  });
});

describe('who ended a stream', () => {
  it('a run the client aborted is "aborted by the client" with no finding against the agent, and its replay says the recording was cut', async () => {
    const agent = await fixtures.agui({ script: 'endless', intervalMs: 5 });
    const out = fixtures.scratch().file('aborted.db');
    const { r, url } = await recording(agent.url, out);
    const client = new HttpAgent({ url: `${url}/agent`, threadId: 'thread-1', initialMessages: [{ id: 'u1', role: 'user', content: 'Hi' }] });
    let contents = 0;
    const run = client.runAgent(
      { runId: 'run-1' },
      {
        onTextMessageContentEvent: () => {
          if (++contents === 3) client.abortRun();
        },
      },
    );
    await run.catch(() => undefined);
    const line = await r.waitForLine(/#1 POST \/agent/);
    expect(line).toMatch(/ msg valid aborted by the client \d+ms$/);
    expect(r.lines.filter((l) => l.includes('✗'))).toEqual([]);
    await stop(r);

    const [listed, one, asJson] = await show(out, [], ['--exchange', '1'], ['--json']);
    expect(rowOf(listed, 1).slice(5)).toEqual(['valid', 'aborted by the client', 'RunAgentInput body']);
    expect(one.stdout.split('\n')[0]).toBe('#1 POST /agent 200 sse/agui aborted by the client (the client disconnected before the response finished)');
    expect(one.stdout).not.toMatch(/invalid|stream-truncated/);
    expect(JSON.parse(asJson.stdout).exchanges[0]).toMatchObject({ invalid: 0, outcome: 'aborted', endedBy: 'client' });

    const replay = cli(['replay', out, '--listen', '0', '--timing', 'none']);
    const replayUrl = /^listening on (\S+)/.exec(await replay.waitForLine(/^listening on /))![1];
    // The same client again: the recorded stream stops short of RUN_FINISHED, which it reports as an error.
    const again = new HttpAgent({ url: `${replayUrl}/agent`, threadId: 'thread-2', initialMessages: [{ id: 'u1', role: 'user', content: 'Hi' }] });
    await again.runAgent({ runId: 'run-2' }).catch(() => undefined);
    expect(await replay.waitForLine(/^#1 /)).toMatch(/^#1 POST \/agent 200 sse \d+ messages 2 ids substituted \(the recording was cut by its client\)$/);
    await stop(replay);
  });
});

describe('replay counts per exchange', () => {
  it('"N ids substituted" counts the ids of that exchange, not every id learnt so far', async () => {
    const agent = await fixtures.agui();
    const out = fixtures.scratch().file('two-runs.db');
    const { r, url } = await recording(agent.url, out);
    for (const n of [1, 2]) {
      await (await postRun(`${url}/agent`, {}, runInput(`thread-${n}`, `run-${n}`))).text();
      await r.waitForLine(new RegExp(`#${n} POST /agent`));
    }
    await stop(r);

    const replay = cli(['replay', out, '--listen', '0', '--timing', 'none']);
    const replayUrl = /^listening on (\S+)/.exec(await replay.waitForLine(/^listening on /))![1];
    for (const n of [1, 2]) {
      await (await postRun(`${replayUrl}/agent`, {}, runInput(`live-thread-${n}`, `live-run-${n}`))).text();
      expect(await replay.waitForLine(new RegExp(`^#${n} `))).toMatch(/ \d+ messages 2 ids substituted$/);
    }
    await stop(replay);
  });
});

describe('show --exchange times', () => {
  it('labels its time column and counts from the start of the exchange, as the inspector does', async () => {
    const agent = await fixtures.agui();
    const out = fixtures.scratch().file('times.db');
    const { r, url } = await recording(agent.url, out);
    await rawRequest({ url }, 'GET', '/health');
    await r.waitForLine(/#1 GET/);
    await (await postRun(`${url}/agent`)).text();
    await r.waitForLine(/#2 POST/);
    await stop(r);

    const [asJson, asText] = await show(out, ['--exchange', '2', '--json'], ['--exchange', '2']);
    const json = JSON.parse(asJson.stdout);
    const text = asText.stdout.split('\n');
    expect(text[1]).toMatch(/; starts \+\d+\.\d ms into the recording$/);
    expect(text[2]).toBe('  protocol agui, chosen by RunAgentInput body');
    expect(text[3].trim()).toBe('seq  since exchange start');
    const first = json.messages[0];
    expect(first.sinceExchangeStartMs).toBeLessThan(first.tOffsetMs);
    expect(text[4]).toContain(` +${first.sinceExchangeStartMs.toFixed(1)} ms  → `);
  });
});
