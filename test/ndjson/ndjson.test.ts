import { copyFileSync, statSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ndjsonConversation, startNdjsonDaemon } from '../support/ndjson-daemon.js';
import { readRecording, spawnLines } from '../stdio/stdio-helpers.js';
import { runCli } from '../cli/run-cli.js';
import { tempDir } from '../support/temp-dir.js';
import { connect, conversation, ndjsonScope, type Json } from './ndjson-helpers.js';

const scope = ndjsonScope('agent-proxy-ndjson-');

const withoutIds = (lines: Json[]) => lines.map((l) => ({ ...l, requestId: typeof l.requestId === 'string' ? l.requestId.replace(/-(live|replay|direct)$/, '') : l.requestId }));

describe('proxy record --ndjson', () => {
  it('relays the daemon socket unchanged, owner-only, and records each connection with verdicts; a half line is kept as incomplete', async () => {
    scope.daemon = await startNdjsonDaemon(scope.dir.file('daemon.sock'));
    const direct = await conversation(scope.daemon.socketPath, '-direct');
    const out = scope.dir.file('ndjson.db');
    const { proc, socket } = await scope.recordThrough(scope.daemon.socketPath, out);
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    const proxied = await conversation(socket, '-direct');
    expect(proxied).toEqual(direct);

    const half = await connect(socket);
    half.socket.end('{"protocolVersion":"1.0","requestId":"half-1","operation":"sta');
    await half.closed;
    expect(await scope.stop(proc)).toBe(0);

    const rec = readRecording(out);
    expect(rec.exchanges.map((e) => [e.transport, e.protocol, e.outcome])).toEqual([
      ['ndjson', 'unix-ndjson', 'complete'],
      ['ndjson', 'unix-ndjson', 'complete'],
    ]);
    const messages = rec.messages(rec.exchanges[0].id);
    expect(messages.filter((m) => m.sender === 'client')).toHaveLength(ndjsonConversation().length);
    expect(messages.every((m) => m.carrier === 'line')).toBe(true);
    expect(messages.filter((m) => m.verdict.status !== 'valid').map((m) => [m.seq, m.verdict])).toEqual([]);
    const [incomplete] = rec.messages(rec.exchanges[1].id);
    expect(incomplete.raw.toString()).toBe('{"protocolVersion":"1.0","requestId":"half-1","operation":"sta');
    expect(incomplete.verdict.status).toBe('invalid');
    expect(incomplete.verdict.findings[0].message).toMatch(/incomplete line/);
  });

  it('records a daemon socket that is not there, or that nobody listens on, as upstream-unreachable with one line each, and goes on', async () => {
    const target = scope.dir.file('daemon.sock');
    const out = scope.dir.file('unreachable.db');
    const { proc, socket } = await scope.recordThrough(target, out);
    const missing = await connect(socket);
    await missing.closed;
    await proc.waitForLines(2);
    expect(proc.lines()[1]).toContain(`error: could not connect to unix:${target}: no socket at that path (ENOENT)`);
    // A socket file its daemon left behind when it was killed: nobody listens on it.
    const stale = spawnLines('node', ['-e', `require('node:net').createServer().listen(${JSON.stringify(target)}, () => console.log('up'))`]);
    await stale.waitForLines(1);
    stale.child.kill('SIGKILL');
    await stale.exited;
    const refused = await connect(socket);
    await refused.closed;
    await proc.waitForLines(3);
    expect(proc.lines()[2]).toContain(`error: could not connect to unix:${target}: nothing listens on that socket (ECONNREFUSED)`);
    expect(await scope.stop(proc)).toBe(0);

    const rec = readRecording(out);
    expect(rec.exchanges.map((e) => [e.transport, e.outcome, e.errorCode])).toEqual([
      ['ndjson', 'error', 'E_UPSTREAM_UNREACHABLE'],
      ['ndjson', 'error', 'E_UPSTREAM_UNREACHABLE'],
    ]);
    const findings = (await runCli(['findings', '--json', out])).stdout;
    expect((JSON.parse(findings) as { findings: Array<{ exchange: number; rule: string; severity: string; message: string }> }).findings.map((f) => [f.exchange, f.severity, f.rule, f.message])).toEqual([
      [1, 'error', 'upstream-unreachable', `the upstream could not be reached (could not connect to unix:${target}: no socket at that path (ENOENT))`],
      [2, 'error', 'upstream-unreachable', `the upstream could not be reached (could not connect to unix:${target}: nothing listens on that socket (ECONNREFUSED))`],
    ]);
  });
});

describe('proxy replay --ndjson', () => {
  // The daemon's conversation is recorded once for the block (a recorder with --schemas is ~0.75 s of
  // CPU), by the first test that asks, with its daemon closed after; each test replays a copy of its own.
  const shared = tempDir('agent-proxy-ndjson-source-');
  afterAll(() => shared.cleanup());
  let source: Promise<string> | undefined;

  async function recordSource(): Promise<string> {
    const daemon = await startNdjsonDaemon(scope.dir.file('daemon.sock'));
    try {
      const out = scope.dir.file('recorded.db');
      const { proc, socket } = await scope.recordThrough(daemon.socketPath, out);
      await conversation(socket, '-direct');
      expect(await scope.stop(proc)).toBe(0);
      copyFileSync(out, shared.file('source.db'));
      return shared.file('source.db');
    } finally {
      await daemon.close();
    }
  }

  /** A copy of the recorded conversation in this test's folder; no daemon is running. */
  async function recorded(): Promise<string> {
    source ??= recordSource();
    const out = scope.dir.file('source.db');
    copyFileSync(await source, out);
    return out;
  }

  it('serves the recorded connection on an owner-only socket with the live requestIds; record → replay → record gives the same lines', async () => {
    const source = await recorded();
    const replaySocket = scope.dir.file('replay.sock');
    const replay = scope.startCli(['replay', '--ndjson', source, '--listen', `unix:${replaySocket}`, '--timing', 'none', '--strict']);
    expect((await replay.waitForLines(1))[0]).toBe(`listening on unix:${replaySocket}`);
    expect(statSync(replaySocket).mode & 0o777).toBe(0o600);

    // Record the replay through a second proxy, with the same ids as the first recording.
    const again = scope.dir.file('again.db');
    const { proc, socket } = await scope.recordThrough(replaySocket, again);
    await conversation(socket, '-direct');
    expect(await scope.stop(proc)).toBe(0);
    const lines = (file: string) => {
      const rec = readRecording(file);
      return rec.messages(rec.exchanges[0].id).map((m) => ({ sender: m.sender, raw: m.raw.toString(), status: m.verdict.status }));
    };
    expect(lines(again)).toEqual(lines(source));

    // A second recorded connection does not exist: replay it again on a fresh server, with new ids.
    expect(await scope.stop(replay)).toBe(0);
    const replay2 = scope.startCli(['replay', '--ndjson', source, '--listen', `unix:${replaySocket}`, '--timing', 'none', '--strict']);
    await replay2.waitForLines(1);
    const live = await conversation(replaySocket, '-live');
    const responses = live.filter((l) => l.kind === 'response');
    expect(responses.map((r) => r.requestId)).toEqual(ndjsonConversation().map((c) => `${String(c.command.requestId)}-live`));
    const wakeEvents = live.filter((l) => l.kind === 'event' && l.event === 'promptAccepted');
    expect(wakeEvents.map((e) => e.requestId)).toEqual(['wake-1-live', 'wake-dup-live']);
    expect(withoutIds(live)).toEqual(withoutIds(readRecording(source).messages(1).filter((m) => m.sender === 'server').map((m) => m.json as Json)));
    expect(await scope.stop(replay2)).toBe(0);
  });

  it('answers a line that matches nothing with ok:false replay_miss, and --strict exits 1', async () => {
    const source = await recorded();
    const replaySocket = scope.dir.file('miss.sock');
    const replay = scope.startCli(['replay', '--ndjson', source, '--listen', `unix:${replaySocket}`, '--timing', 'none', '--strict']);
    await replay.waitForLines(1);
    const client = await connect(replaySocket);
    client.socket.write('{"protocolVersion":"1.0","requestId":"st-9","operation":"status","sessionId":"ndjson-a","generation":1,"payload":{}}\n');
    await client.waitFor((l) => l.requestId === 'st-9');
    expect(client.lines[0]).toMatchObject({ kind: 'response', requestId: 'st-9', ok: false, error: { code: 'replay_miss' } });
    expect((client.lines[0].error as Json).message).toMatch(/does not match recorded line 1 .*"operation":"handshake".* at \/generation, \/operation, \/sessionId/);
    client.socket.end();
    await client.closed;
    await replay.waitForLines(3);
    expect(replay.lines().some((l) => l.startsWith('miss replay miss: line 1'))).toBe(true);
    expect(await scope.stop(replay)).toBe(1);
  });
});
