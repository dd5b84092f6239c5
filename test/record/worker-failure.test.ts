/**
 * A recording worker that dies must not stall the traffic: capture is released, later ops are
 * dropped, and close() reports the failure instead of hanging.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RecordingClock } from '../../src/core/recording-clock.js';
import { WorkerRecordingSink } from '../../src/record/worker/worker-recording-sink.js';
import { within } from '../support/waits.js';
import { useCleanups } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';

useCleanups();

describe('WorkerRecordingSink when the worker dies', () => {
  it('releases capture, drops later ops and rejects close() with E_STORE_WRITE', async () => {
    const dir = scratch('agent-proxy-worker-').dir;
    const script = join(dir, 'dying-worker.mjs');
    // Opens "the recording", then crashes on the first batch it is sent.
    writeFileSync(
      script,
      `import { parentPort } from 'node:worker_threads';
       parentPort.postMessage({ type: 'ready', out: 'x.db' });
       parentPort.on('message', () => { throw new Error('boom'); });`,
    );
    const stderr: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (stderr.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      const clock = new RecordingClock();
      const sink = await WorkerRecordingSink.start(
        pathToFileURL(script),
        { out: join(dir, 'x.db'), meta: { toolVersion: 't', mode: 'record', startedAt: clock.startedAt.toISOString() }, clockOrigin: clock.origin, live: false },
        clock,
      );
      const exchange = sink.openExchange({ transport: 'http', method: 'GET', path: '/' });
      // 20 MiB queued: past the 16 MiB mark, so capture is told to wait…
      for (let i = 0; i < 20; i++) exchange.record('server', Buffer.alloc(1024 * 1024), { carrier: 'body', json: false });
      expect(sink.overloaded).toBe(true);
      const released = new Promise<void>((resolve) => sink.onDrain(resolve));
      // …until the worker dies, which must release it rather than leave traffic paused forever.
      await within(released, 'capture to be released');
      expect(sink.overloaded).toBe(false);
      exchange.record('server', Buffer.alloc(1024 * 1024), { carrier: 'body', json: false });
      expect(sink.overloaded).toBe(false);
      await expect(sink.close(new Date())).rejects.toMatchObject({ code: 'E_STORE_WRITE' });
      expect(stderr.join('')).toMatch(/recording stopped, traffic is still forwarded: the recording worker failed: boom/);
    } finally {
      process.stderr.write = write;
    }
  });
});
