/**
 * kill -9 of a recording proxy in the middle of a stream: the file must reopen cleanly and hold a
 * prefix of what the client saw, byte for byte, with every row it had committed before the kill.
 */
import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { startAguiAgent, type AguiAgent } from '../support/agui-agent.js';
import { waitFor, within } from '../support/waits.js';
import { committedServerRows, postRun, spawnRecorder, sseBlocks } from './record-helpers.js';
import { tempDir } from '../support/temp-dir.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const INTERVAL_MS = 5;

describe('proxy record: kill -9 mid-stream', () => {
  it('leaves a file that reopens cleanly and holds a byte-exact prefix of what the client saw', async () => {
    const a: AguiAgent = await startAguiAgent({ script: 'endless', intervalMs: INTERVAL_MS });
    cleanups.push(() => a.close());
    const dir = tempDir();
    cleanups.push(() => dir.cleanup());
    const out = dir.file('crash.db');

    const r = spawnRecorder(['--target', a.url, '--listen', '0', '--out', out]);
    cleanups.push(async () => {
      if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
      await r.exited;
    });
    const url = /^listening on (\S+) -> /.exec(await r.waitForLine(/^listening on /))![1];

    const res = await postRun(url);
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const chunks: Buffer[] = [];
    // Read on the client while the stream runs; keep reading after the kill until the body fails,
    // so every byte the proxy forwarded (and so could have recorded) is counted as seen.
    const reading = (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return 'ended';
          chunks.push(Buffer.from(value));
        }
      } catch {
        return 'failed';
      }
    })();
    // Kill it mid-stream once the client has seen a real stream and the recording has committed
    // part of it (the recording worker runs at low priority: on a loaded machine that takes a while).
    let committed = 0;
    await waitFor(() => sseBlocks(Buffer.concat(chunks)).length > 50 && (committed = committedServerRows(out)) >= 10, 'a stream running and rows committed');
    r.child.kill('SIGKILL');
    expect(await within(r.exited, 'the recorder to die')).toEqual({ code: null, signal: 'SIGKILL' });
    expect(await within(reading, 'the client body to end')).toBe('failed');
    expect(await within(a.requests[0].aborted, 'the agent to see the connection go')).toBe(true);

    const seen = Buffer.concat(chunks);
    const seenEvents = sseBlocks(seen);
    expect(seenEvents.length).toBeGreaterThan(50);

    // The file reopens with the project's reader, and SQLite agrees it is sound.
    const db = new Database(out, { readonly: true, fileMustExist: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
    const recording = RecordingReader.open(out);
    try {
      expect(recording.recording().endedAt).toBeUndefined();
      const exchanges = recording.exchanges();
      expect(exchanges).toHaveLength(1);
      expect(exchanges[0]).toMatchObject({ transport: 'sse', protocol: 'agui', status: 200, outcome: null, endedMs: null });

      const stored = recording.messages(exchanges[0].id).filter((m) => m.sender === 'server');
      // A prefix: the same raw bytes, in the same order, event by event.
      expect(stored.length).toBeGreaterThan(0);
      expect(stored.length).toBeLessThanOrEqual(seenEvents.length);
      for (let i = 0; i < stored.length; i++) {
        if (!stored[i].raw.equals(seenEvents[i])) {
          throw new Error(`stored event #${i} differs from what the client saw: ${JSON.stringify(stored[i].raw.toString())} vs ${JSON.stringify(seenEvents[i].toString())}`);
        }
      }
      expect(seen.subarray(0, Buffer.concat(stored.map((m) => m.raw)).length).equals(Buffer.concat(stored.map((m) => m.raw)))).toBe(true);
      // … holding at least every row it had committed before the kill.
      expect(stored.length, `committed ${committed} before the kill, client saw ${seenEvents.length}`).toBeGreaterThanOrEqual(committed);
      expect(stored.every((m) => m.verdict.status === 'valid')).toBe(true);
    } finally {
      recording.close();
    }
  });
});
