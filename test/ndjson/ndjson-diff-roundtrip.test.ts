/**
 * Issue 6, "Round trip", for the daemon's unix-ndjson socket: record through `proxy record --ndjson`,
 * replay with `proxy replay --ndjson`, record the replay through a second `proxy record --ndjson`;
 * `proxy diff` of the two recordings reports no differences. A third recording with one client line
 * changed is the negative control: the diff exits 1 and names the differing pointer.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../record/record-helpers.js';
import { sharedPath } from '../support/shared.js';
import { startNdjsonDaemon, type NdjsonDaemon } from '../support/ndjson-daemon.js';
import { BIN, diffJson, pointersOf, readRecording, spawnLines, type LineProcess } from '../stdio/stdio-helpers.js';
import { conversation, type Json } from './ndjson-helpers.js';

let dir: ReturnType<typeof tempDir>;
let daemon: NdjsonDaemon | undefined;
const running: LineProcess[] = [];
beforeEach(() => {
  dir = tempDir('agent-proxy-ndjson-diff-');
});
afterEach(async () => {
  for (const p of running.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await daemon?.close();
  daemon = undefined;
  dir.cleanup();
});

function startCli(args: string[]): LineProcess {
  const proc = spawnLines('node', [BIN, ...args]);
  running.push(proc);
  return proc;
}

async function stop(proc: LineProcess): Promise<number | null> {
  proc.child.kill('SIGTERM');
  return (await proc.exited).code;
}

/** Resolves once a stdout line of `proc` matches `pattern`. */
async function waitForLine(proc: LineProcess, pattern: RegExp): Promise<void> {
  for (let n = 1; !proc.lines().some((l) => pattern.test(l)); n++) await proc.waitForLines(n);
}

/** Records one client conversation against `target` through `proxy record --ndjson` into `out`. */
async function recordConversation(target: string, out: string, suffix: string, edit?: (command: Json) => Json): Promise<void> {
  const socket = dir.file(`proxy-${running.length}.sock`);
  const proc = startCli(['record', '--ndjson', '--target', `unix:${target}`, '--listen', `unix:${socket}`, '--out', out, '--schemas', sharedPath('schemas-extra')]);
  expect((await proc.waitForLines(1))[0]).toBe(`listening on unix:${socket} -> unix:${target}`);
  await conversation(socket, suffix, edit);
  // Stop only once the proxy has ended the exchange: the client seeing its socket closed does not mean
  // the proxy has processed both ends yet, and a stop in between records errorCode E_PROXY_SHUTDOWN.
  await waitForLine(proc, /#1 .*ndjson\/unix-ndjson \d+ msg/);
  expect(await stop(proc), proc.stderr()).toBe(0);
}

describe('round trip: record → replay → record → proxy diff (unix-ndjson)', () => {
  it('the recording of the replay equals the original; a changed wake prompt is named', async () => {
    daemon = await startNdjsonDaemon(dir.file('daemon.sock'));
    const first = dir.file('first.db');
    await recordConversation(daemon.socketPath, first, '-direct');

    // Negative control, recorded against the same daemon: the first wake's prompt text changed.
    const third = dir.file('third.db');
    await recordConversation(daemon.socketPath, third, '-direct', (c) =>
      c.requestId === 'wake-1-direct' ? { ...c, payload: { ...(c.payload as Json), prompt: 'Say goodbye' } } : c,
    );
    await daemon.close();
    daemon = undefined;

    const replaySocket = dir.file('replay.sock');
    const replay = startCli(['replay', '--ndjson', first, '--listen', `unix:${replaySocket}`, '--timing', 'none', '--strict', '--quiet']);
    expect((await replay.waitForLines(1))[0]).toBe(`listening on unix:${replaySocket}`);
    // Other requestIds than the first time: the replay answers with them and the diff canonicalizes them.
    const second = dir.file('second.db');
    await recordConversation(replaySocket, second, '-again');
    expect(await stop(replay), replay.stderr()).toBe(0);

    for (const file of [first, second]) expect(readRecording(file).exchanges).toMatchObject([{ transport: 'ndjson', protocol: 'unix-ndjson', outcome: 'complete' }]);

    const same = await diffJson(first, second);
    expect(same.report.exchanges, JSON.stringify(same.report.exchanges)).toEqual([]);
    expect(same.report.equal).toBe(true);
    expect(same.code).toBe(0);
    expect(same.report.a.messages).toBe(same.report.b.messages);

    const differs = await diffJson(first, third);
    expect(differs.code).toBe(1);
    expect(differs.report.equal).toBe(false);
    expect(differs.report.summary.messages).toEqual({ changed: 1, added: 0, removed: 0 });
    const [message] = differs.report.exchanges[0].messages;
    expect(message).toMatchObject({ change: 'changed', a: { sender: 'client', label: 'wake' }, differences: [{ pointer: '/payload/prompt', a: 'Say hello', b: 'Say goodbye' }] });
    expect(pointersOf(differs.report)).toEqual(['/payload/prompt']);
  });
});
