/**
 * A burst on a line transport outruns recording. Its first batches wait in memory, the rest in the
 * spool file, and everything reaches the recording worker in capture order once the burst pauses.
 * Runs the built worker (dist), as `proxy record --stdio` does.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RecordingClock } from '../../src/core/recording-clock.js';
import { WorkerRecordingSink } from '../../src/record/worker/worker-recording-sink.js';
import { readRecording } from '../stdio/stdio-helpers.js';
import { useCleanups } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';
import { waitFor } from '../support/waits.js';

const WORKER = new URL('../../dist/record/worker/recording-worker.js', import.meta.url);
const turn = () => new Promise((resolve) => setImmediate(resolve));
const line = (i: number) => `{"type":"queue_update","steering":[],"followUp":["line ${i}"]}\n`;

useCleanups();

describe('a burst on a line transport', () => {
  it('holds its start in memory, spools the rest, and records every line in order', async () => {
    const out = scratch('agent-proxy-held-').file('held.db');
    const clock = new RecordingClock();
    const sink = WorkerRecordingSink.launch(
      WORKER,
      { out, meta: { toolVersion: 't', mode: 'record', startedAt: clock.startedAt.toISOString() }, clockOrigin: clock.origin, live: false, protocol: 'pi-rpc' },
      clock,
      // A small memory allowance, so that a few megabytes are enough to reach the spool too.
      { spoolPath: `${out}.spool`, heldMaxBytes: 256 * 1024 },
    );
    const exchange = sink.openExchange({ transport: 'stdio', url: 'burst' });
    const tap = exchange.tap({ kind: 'lines', sender: 'server', channel: 'stdout' });
    let lines = 0;
    let expected = '';
    // Two bursts of ~3 MiB, one 64 KiB chunk per event-loop turn as a pipe delivers them, with a
    // pause between them until what the first one left in memory has been posted to the worker.
    for (const burst of [1, 2]) {
      for (let c = 0; c < 48; c++) {
        let chunk = '';
        while (chunk.length < 64 * 1024) chunk += line(lines++);
        expected += chunk;
        tap.push(Buffer.from(chunk));
        await turn();
      }
      if (burst === 1) await waitFor(() => sink.heldBatches === 0, 'the first burst\'s held batches to be posted');
    }
    tap.end(true);
    exchange.end({ outcome: 'complete' });
    expect(sink.deferred.inMemory).toBeGreaterThan(0);
    expect(sink.deferred.spooled).toBeGreaterThan(0);

    const totals = await sink.close(new Date());
    expect(totals.messages).toBe(lines);
    const recording = readRecording(out);
    const stored = recording.messages(recording.exchanges[0].id);
    expect(stored).toHaveLength(lines);
    expect(Buffer.concat(stored.map((m) => m.raw)).toString()).toBe(expected);
    expect(stored.every((m) => m.verdict.status === 'valid')).toBe(true);
    expect(existsSync(`${out}.spool`)).toBe(false);
  });
});
