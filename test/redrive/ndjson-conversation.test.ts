/**
 * redrive --target unix:… in-process: connections to the NDJSON daemon stand-in, recorded through the
 * NDJSON relay, are sent again through a relay of redrive's own, recorded anew and diffed.
 */
import { createConnection } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ndjsonConversation, startNdjsonDaemon } from '../support/ndjson-daemon.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor, within } from '../support/waits.js';
import { startNdjsonRecorder } from '../../src/record/relay/ndjson-relay.js';
import { runRedrive } from '../../src/redrive/run-redrive.js';
import { openRecording } from '../../src/store/open-recording.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { exportNdjsonText } from '../../src/export/ndjson-export.js';
import { ManualClock, deadlinesOf, driveClock, writtenBy } from '../support/manual-clock.js';
import { writeFileSync } from 'node:fs';

useCleanups();

const dir = tempDir('agent-proxy-redrive-ndjson-');
const golden = dir.file('golden.db');
const COMMANDS = ['handshake', 'open', 'status'].map((operation) => ndjsonConversation().find((c) => c.command.operation === operation)!.command);

/**
 * One connection through the relay: each command once the one before it is answered, then the client
 * ends. The commands after `open` name the session it answered with, as a client does.
 */
async function recordGolden(daemonSocket: string, out = golden): Promise<void> {
  const recorder = await startNdjsonRecorder({ target: `unix:${daemonSocket}`, listen: `unix:${dir.file('proxy.sock')}`, out });
  const socket = createConnection({ path: recorder.url.slice('unix:'.length), allowHalfOpen: true });
  const answers: string[] = [];
  let pending = '';
  socket.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString('utf8')).split('\n');
    pending = lines.pop()!;
    answers.push(...lines);
  });
  const closed = new Promise((resolve) => socket.once('close', resolve));
  for (const [i, command] of COMMANDS.entries()) {
    const session = answers.length > 1 ? (JSON.parse(answers[1]) as { sessionId: string }).sessionId : undefined;
    socket.write(`${JSON.stringify(session === undefined || command.operation === 'open' ? command : { ...command, sessionId: session })}\n`);
    await waitFor(() => answers.length > i || undefined, `answer ${i + 1}`, { wakeOn: [[socket, 'data']] });
  }
  socket.end();
  await within(closed, 'the connection to close');
  await recorder.close();
}

/** The lines of a recording's exchanges, in recorded order: who sent each, and what. */
function recordedLines(file: string): { sender: string; json: unknown }[] {
  const reader = openRecording(file);
  try {
    return reader.exchanges().flatMap((e) => reader.messages(e.id).map((m) => ({ sender: m.sender, json: m.json })));
  } finally {
    reader.close();
  }
}

describe('runRedrive with --target unix:', () => {
  let daemonSocket: string;
  afterAll(() => dir.cleanup());
  beforeAll(async () => {
    const daemon = await startNdjsonDaemon(dir.file('daemon.sock'));
    onCleanup(() => daemon.close());
    daemonSocket = daemon.socketPath;
    await recordGolden(daemonSocket);
  });

  it('against the daemon that produced the recording: each line sent again after the answers it waited for; equal', async () => {
    const result = await runRedrive({ recording: golden, target: `unix:${daemonSocket}`, out: dir.file('same.db'), diff: { semantic: true } });
    expect(result).toMatchObject({ sent: 1, skipped: [] });
    expect(recordedLines(result.out)).toEqual(recordedLines(golden));
    expect(result.report.equal).toBe(true);
  });

  it('carries the session id a daemon mints on the connection into its later lines: every command reaches the new session; equal', async () => {
    const minting = async (name: string) => {
      const daemon = await startNdjsonDaemon(dir.file(name), { mintSessions: true });
      onCleanup(() => daemon.close());
      return daemon;
    };
    const mintedGolden = dir.file('minted-golden.db');
    await recordGolden((await minting('minted-a.sock')).socketPath, mintedGolden);
    const fresh = await minting('minted-b.sock');
    const result = await runRedrive({ recording: mintedGolden, target: `unix:${fresh.socketPath}`, out: dir.file('minted.db'), diff: { semantic: true } });
    const lines = recordedLines(result.out);
    const opened = (lines[3].json as { sessionId: string }).sessionId;
    expect(opened).not.toBe((recordedLines(mintedGolden)[3].json as { sessionId: string }).sessionId);
    expect(lines[4]).toMatchObject({ sender: 'client', json: { operation: 'status', sessionId: opened } });
    expect(lines[5]).toMatchObject({ sender: 'server', json: { ok: true, sessionId: opened } });
    expect(result.report.equal).toBe(true);
  });

  it('paced at 2x (--timing 2x): each line once the answers before it have come and its recorded offset from the connection\'s start, halved, is due', async () => {
    // The golden connection with its client lines moved to 0, 1000 and 2500 ms after the connection's start.
    const reader = RecordingReader.open(golden);
    const lines = exportNdjsonText(reader).split('\n');
    reader.close();
    const startedMs = (JSON.parse(lines.find((l) => l.startsWith('{"type":"exchange"'))!) as { startedMs: number }).startedMs;
    const moved = [0, 1000, 2500];
    let client = 0;
    const paced = dir.file('paced.ndjson');
    writeFileSync(paced, lines.map((l) => (l.startsWith('{"type":"message"') && l.includes('"sender":"client"') ? JSON.stringify({ ...JSON.parse(l), tOffsetMs: startedMs + moved[client++] }) : l)).join('\n'));
    expect(client).toBe(3);

    const daemon = await startNdjsonDaemon(dir.file('paced.sock'));
    onCleanup(() => daemon.close());
    const clock = new ManualClock();
    const due = moved.map((offset) => offset / 2);
    const received = () => daemon.received.at(-1)?.length ?? 0;
    const seen: number[] = [];
    const run = runRedrive({ recording: paced, target: `unix:${daemon.socketPath}`, out: dir.file('paced.db'), pacing: { timing: { mode: 'recorded', speed: 2 }, clock }, diff: { semantic: true } });
    // Before each step of the clock: the lines due by now have come, and no other.
    const stepped = await driveClock(clock, run, async () => {
      await waitFor(() => received() >= writtenBy(due, clock.now()), `the lines due at ${clock.now()} ms`);
      seen.push(received());
    });
    // Offsets are fractional milliseconds: the due times are as exact as their subtraction.
    expect(stepped).toEqual(deadlinesOf(due).map((at) => expect.closeTo(at, 6)));
    expect(seen).toEqual([0, ...stepped.slice(0, -1)].map((now) => writtenBy(due, now)));
    expect(daemon.received.at(-1)).toHaveLength(3);
    expect((await run).report.equal).toBe(true);
  });

  it('against the daemon changed in one answer: exactly that change', async () => {
    const changed = await startNdjsonDaemon(dir.file('changed.sock'), {
      change: (reply) => (reply.requestId === 'status-1' ? { ...reply, data: { ...(reply.data as object), queuedTurns: 3 } } : reply),
    });
    onCleanup(() => changed.close());
    const result = await runRedrive({ recording: golden, target: `unix:${changed.socketPath}`, out: dir.file('changed.db'), diff: { semantic: true } });
    expect(result.report.equal).toBe(false);
    expect(result.report.summary).toMatchObject({ exchanges: { changed: 1, added: 0, removed: 0 }, regressions: 0 });
    const differences = result.report.exchanges.flatMap((e) => e.messages.flatMap((m) => m.differences));
    expect(differences.map((d) => [d.a, d.b])).toEqual([[0, 3]]);
  });
});
