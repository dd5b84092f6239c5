/**
 * A flood of small exchanges carries far more op JSON (starts, headers, routes) than payload. While
 * the worker lags, that JSON waits in memory too: capture must be told to wait once it piles up,
 * not only once the payload does, and be released as the worker catches up.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RecordingClock } from '../../src/core/recording-clock.js';
import { WorkerRecordingSink } from '../../src/record/worker/worker-recording-sink.js';
import { useCleanups } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';

// A stand-in worker that holds every batch until it is sent 'close', then reports them all applied.
const LAGGING_WORKER = `
import { parentPort } from 'node:worker_threads';
parentPort.postMessage({ type: 'ready', out: 'x.db' });
let bytes = 0, opsBytes = 0;
const totals = { exchanges: 0, messages: 0, invalid: 0, findings: 0 };
parentPort.on('message', (message) => {
  if (message.type === 'ops') { bytes += message.bytes; opsBytes += message.opsBytes; return; }
  if (message.type === 'close') {
    parentPort.postMessage({ type: 'progress', bytes, opsBytes, spooled: 0, totals });
    parentPort.postMessage({ type: 'closed', totals });
  }
});`;

const turn = () => new Promise((resolve) => setImmediate(resolve));

useCleanups();

describe('WorkerRecordingSink backlog of op JSON', () => {
  it('pauses capture once ~32 MiB of op JSON waits, with almost no payload, and resumes when it is applied', async () => {
    const dir = scratch('agent-proxy-backlog-').dir;
    const script = join(dir, 'lagging-worker.mjs');
    writeFileSync(script, LAGGING_WORKER);
    const clock = new RecordingClock();
    const sink = await WorkerRecordingSink.start(
      pathToFileURL(script),
      { out: join(dir, 'x.db'), meta: { toolVersion: 't', mode: 'record', startedAt: clock.startedAt.toISOString() }, clockOrigin: clock.origin, live: false },
      clock,
    );
    // Exchanges with 8 KiB of headers each and a 2-byte body: 4,000 of them are ~33 MiB of JSON.
    const requestHeaders = { 'x-padding': 'p'.repeat(8 * 1024) };
    let exchanges = 0;
    while (!sink.overloaded && exchanges < 6_000) {
      for (let i = 0; i < 100; i++, exchanges++) {
        const exchange = sink.openExchange({ transport: 'http', method: 'GET', path: `/items/${exchanges}`, requestHeaders });
        exchange.record('server', Buffer.from('{}'), { carrier: 'body' });
        exchange.end({ outcome: 'complete' });
      }
      await turn();
    }
    expect(sink.overloaded).toBe(true);
    expect(exchanges).toBeGreaterThan(3_500);
    expect(exchanges).toBeLessThan(4_500);

    let released = false;
    sink.onDrain(() => (released = true));
    // The stand-in applies everything when asked to close; that report must release capture.
    await sink.close(new Date());
    expect(released).toBe(true);
    expect(sink.overloaded).toBe(false);
  });
});
