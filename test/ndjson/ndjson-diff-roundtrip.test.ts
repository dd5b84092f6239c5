/**
 * Issue 6, "Round trip", for the daemon's unix-ndjson socket: record through `proxy record --ndjson`,
 * replay with `proxy replay --ndjson`, record the replay through a second `proxy record --ndjson`;
 * `proxy diff` of the two recordings reports no differences. A third recording with one client line
 * changed is the negative control: the diff exits 1 and names the differing pointer.
 */
import { describe, expect, it } from 'vitest';
import { startNdjsonDaemon } from '../support/ndjson-daemon.js';
import { diffJson, pointersOf, readRecording, type LineProcess } from '../stdio/stdio-helpers.js';
import { conversation, ndjsonScope, type Json } from './ndjson-helpers.js';

const scope = ndjsonScope('agent-proxy-ndjson-diff-');

/** Resolves once a stdout line of `proc` matches `pattern`. */
async function waitForLine(proc: LineProcess, pattern: RegExp): Promise<void> {
  for (let n = 1; !proc.lines().some((l) => pattern.test(l)); n++) await proc.waitForLines(n);
}

/** Records one client conversation against `target` through `proxy record --ndjson` into `out`. */
async function recordConversation(target: string, out: string, suffix: string, edit?: (command: Json) => Json): Promise<void> {
  const { proc, socket } = await scope.recordThrough(target, out);
  await conversation(socket, suffix, edit);
  // Stop only once the proxy has ended the exchange: the client seeing its socket closed does not mean
  // the proxy has processed both ends yet, and a stop in between records errorCode E_PROXY_SHUTDOWN.
  await waitForLine(proc, /#1 .*ndjson\/unix-ndjson \d+ msg/);
  expect(await scope.stop(proc), proc.stderr()).toBe(0);
}

describe('round trip: record → replay → record → proxy diff (unix-ndjson)', () => {
  it('the recording of the replay equals the original; a changed wake prompt is named', async () => {
    scope.daemon = await startNdjsonDaemon(scope.dir.file('daemon.sock'));
    const first = scope.dir.file('first.db');
    await recordConversation(scope.daemon.socketPath, first, '-direct');

    // Negative control, recorded against the same daemon: the first wake's prompt text changed.
    const third = scope.dir.file('third.db');
    await recordConversation(scope.daemon.socketPath, third, '-direct', (c) =>
      c.requestId === 'wake-1-direct' ? { ...c, payload: { ...(c.payload as Json), prompt: 'Say goodbye' } } : c,
    );
    await scope.daemon.close();
    scope.daemon = undefined;

    const replaySocket = scope.dir.file('replay.sock');
    const replay = scope.startCli(['replay', '--ndjson', first, '--listen', `unix:${replaySocket}`, '--timing', 'none', '--strict', '--quiet']);
    expect((await replay.waitForLines(1))[0]).toBe(`listening on unix:${replaySocket}`);
    // Other requestIds than the first time: the replay answers with them and the diff canonicalizes them.
    const second = scope.dir.file('second.db');
    await recordConversation(replaySocket, second, '-again');
    expect(await scope.stop(replay), replay.stderr()).toBe(0);

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
