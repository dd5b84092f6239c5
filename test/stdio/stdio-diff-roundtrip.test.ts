/**
 * Issue 6, "Round trip": record → replay → record, then `proxy diff` of the two recordings reports
 * no differences, for stdio Pi RPC and stdio ACP. A third recording with one client line changed
 * is the negative control: the diff exits 1 and names the differing pointer.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.js';
import { ACP_AGENT, BIN, diffJson, PI_AGENT, pointersOf, readRecording, recordStdio, runAcpClient, spawnLines, type LineProcess } from './stdio-helpers.js';

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir('agent-proxy-stdio-diff-');
});
afterEach(() => dir.cleanup());

/** `proxy record --stdio --out <out> -- node bin/proxy.js replay --stdio <recording> --timing none --quiet --strict`. */
function recordReplay(out: string, recording: string): LineProcess {
  return spawnLines('node', [BIN, 'record', '--stdio', '--out', out, '--', process.execPath, BIN, 'replay', '--stdio', recording, '--timing', 'none', '--quiet', '--strict']);
}

/** A Pi RPC frontend: get_state, prompt (17 lines), get_last_assistant_text, each awaited, with the given command ids. */
async function piClient(proc: LineProcess, ids: readonly [string, string, string], message = 'Say hello'): Promise<void> {
  proc.send(`{"id":"${ids[0]}","type":"get_state"}\n`);
  await proc.waitForLines(1);
  proc.send(`{"id":"${ids[1]}","type":"prompt","message":${JSON.stringify(message)}}\n`);
  await proc.waitForLines(18);
  proc.send(`{"id":"${ids[2]}","type":"get_last_assistant_text"}\n`);
  await proc.waitForLines(19);
  proc.child.stdin.end();
}

async function exitsCleanly(proc: LineProcess): Promise<void> {
  expect((await proc.exited).code, proc.stderr()).toBe(0);
}

describe('round trip: record → replay → record → proxy diff (stdio)', () => {
  it('Pi RPC: the recording of the replay equals the original; a changed prompt is named', async () => {
    const first = dir.file('pi-first.db');
    const recorder = recordStdio(first, PI_AGENT, [], { STANDIN_STDERR: 'pi stand-in starting' });
    await piClient(recorder, ['s1', 'p1', 't1']);
    await exitsCleanly(recorder);

    const second = dir.file('pi-second.db');
    const again = recordReplay(second, first);
    // Other command ids than the first time: the replay answers with them and the diff canonicalizes them.
    await piClient(again, ['live-a', 'live-b', 'live-c']);
    await exitsCleanly(again);
    // The replay wrote the recorded stderr line, so both recordings hold a stderr row.
    for (const file of [first, second]) {
      const rec = readRecording(file);
      expect(rec.exchanges).toHaveLength(1);
      expect(rec.exchanges[0]).toMatchObject({ transport: 'stdio', protocol: 'pi-rpc', exitCode: 0 });
      expect(rec.messages(rec.exchanges[0].id).filter((m) => m.channel === 'stderr').map((m) => m.raw.toString())).toEqual(['pi stand-in starting\n']);
    }

    const same = await diffJson(first, second);
    expect(same.report.exchanges, JSON.stringify(same.report.exchanges)).toEqual([]);
    expect(same.report.equal).toBe(true);
    expect(same.code).toBe(0);
    expect(same.report.a.messages).toBe(same.report.b.messages);

    // Negative control: the same frontend with another prompt text, recorded against the agent.
    const third = dir.file('pi-third.db');
    const changed = recordStdio(third, PI_AGENT, [], { STANDIN_STDERR: 'pi stand-in starting' });
    await piClient(changed, ['s1', 'p1', 't1'], 'Say goodbye');
    await exitsCleanly(changed);
    const differs = await diffJson(first, third);
    expect(differs.code).toBe(1);
    expect(differs.report.equal).toBe(false);
    expect(differs.report.summary.messages).toEqual({ changed: 1, added: 0, removed: 0 });
    const [message] = differs.report.exchanges[0].messages;
    expect(message).toMatchObject({ change: 'changed', a: { sender: 'client', label: 'prompt' }, differences: [{ pointer: '/message', a: 'Say hello', b: 'Say goodbye' }] });
    expect(pointersOf(differs.report)).toEqual(['/message']);
  });

  it('ACP (official SDK client): the recording of the replay equals the original; a changed prompt is named', async () => {
    const first = dir.file('acp-first.db');
    const recorder = recordStdio(first, ACP_AGENT);
    const live = await runAcpClient(recorder);
    recorder.child.stdin.end();
    await exitsCleanly(recorder);

    const second = dir.file('acp-second.db');
    const again = recordReplay(second, first);
    const replayed = await runAcpClient(again);
    again.child.stdin.end();
    await exitsCleanly(again);
    expect(replayed.stopReasons).toEqual(['end_turn', 'end_turn']);
    expect(replayed.received).toEqual(live.received);
    for (const file of [first, second]) expect(readRecording(file).exchanges).toMatchObject([{ transport: 'stdio', protocol: 'acp', exitCode: 0 }]);

    const same = await diffJson(first, second);
    expect(same.report.exchanges, JSON.stringify(same.report.exchanges)).toEqual([]);
    expect(same.report.equal).toBe(true);
    expect(same.code).toBe(0);
    expect(same.report.a.messages).toBe(same.report.b.messages);

    // Negative control: the first prompt's text changed (the stand-in answers it with the same text turn).
    const third = dir.file('acp-third.db');
    const changed = recordStdio(third, ACP_AGENT);
    await runAcpClient(changed, ['Say goodbye', 'PERMISSION READFILE please read hello.txt']);
    changed.child.stdin.end();
    await exitsCleanly(changed);
    const differs = await diffJson(first, third);
    expect(differs.code).toBe(1);
    expect(differs.report.equal).toBe(false);
    expect(differs.report.summary.messages).toEqual({ changed: 1, added: 0, removed: 0 });
    const [message] = differs.report.exchanges[0].messages;
    expect(message).toMatchObject({
      change: 'changed',
      a: { sender: 'client', label: 'session/prompt' },
      differences: [{ pointer: '/params/prompt/0/text', a: 'Say hello', b: 'Say goodbye' }],
    });
    expect(pointersOf(differs.report)).toEqual(['/params/prompt/0/text']);
  });
});
