import { describe, expect, it } from 'vitest';
import { progressLine, type ProgressStream } from '../../src/cli/progress-line.js';
import { diffProgress } from '../../src/cli/diff-command.js';
import { diffRecordingFilesReporting } from '../../src/diff/diff-recordings.js';
import { writeNdjsonRecording } from '../support/ndjson-recording.js';

/** A stand-in for stderr that keeps what is written. */
function terminal(isTTY: boolean): ProgressStream & { written: string[] } {
  const written: string[] = [];
  return { isTTY, written, write: (chunk: string | Uint8Array) => (written.push(String(chunk)), true) };
}

describe('progress line', () => {
  it('on a terminal: drawn in place, at most every everyMs on the injected clock, cleared at the end', () => {
    const tty = terminal(true);
    let now = 0;
    const line = progressLine(tty, { everyMs: 100, now: () => now });
    line.update('1 of 3');
    line.update('2 of 3');
    now = 100;
    line.update('3 of 3');
    line.done();
    expect(tty.written).toEqual(['\r\x1b[K1 of 3', '\r\x1b[K3 of 3', '\r\x1b[K']);
  });

  it('on a pipe or a file: nothing at all', () => {
    const pipe = terminal(false);
    const line = progressLine(pipe);
    line.update('1 of 3');
    line.done();
    expect(pipe.written).toEqual([]);
  });
});

describe('diff on a terminal', () => {
  const exchange = (text: string) => [{ transport: 'sse' as const, protocol: 'agui', method: 'POST', path: '/agent', status: 200, messages: [{ sender: 'server' as const, json: { type: 'RUN_STARTED', threadId: 't', runId: text } }] }];

  it('says which side it judges and reads, and how far, for a long read', () => {
    const a = writeNdjsonRecording(exchange('r1'), 'a.ndjson');
    // Another run id alone is no difference (ids are labelled); another status is.
    const b = writeNdjsonRecording([{ ...exchange('r2')[0], status: 500 }], 'b.ndjson');
    const tty = terminal(true);
    let now = 0;
    const line = progressLine(tty, { everyMs: 0, now: () => now++ });
    diffRecordingFilesReporting(a, b, {}, diffProgress(line, 0));
    line.done();
    expect(tty.written).toContain(`\r\x1b[Kdiff: judging again ${a}… 1 of 1 messages`);
    expect(tty.written).toContain(`\r\x1b[Kdiff: reading ${b}… 1 of 1 messages`);
    // Then the exchange that differs is read again and compared: the line says so rather than stay on the reading.
    expect(tty.written.at(-2)).toBe('\r\x1b[Kdiff: comparing the exchanges that differ… 0 of 1');
    expect(tty.written[tty.written.length - 1]).toBe('\r\x1b[K');
  });

  it('says nothing for a read under 100,000 messages', () => {
    const a = writeNdjsonRecording(exchange('r1'), 'a.ndjson');
    const tty = terminal(true);
    const line = progressLine(tty, { everyMs: 0 });
    diffRecordingFilesReporting(a, a, {}, diffProgress(line));
    line.done();
    expect(tty.written).toEqual([]);
  });
});
