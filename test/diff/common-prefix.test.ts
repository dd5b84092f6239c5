/**
 * A long exchange that differs only after a long equal start is read again from near where the two
 * sides part (common-prefix.ts), not from its first message. The report must be what reading it all
 * gives: the same differences, ids labelled as in order (some learnt in the skipped start, one just
 * before the change), and the equal messages around a change named as its context.
 */
import { describe, expect, it } from 'vitest';
import { commonStart, PREFIX_STEP } from '../../src/diff/common-prefix.js';
import { diffRecordingFiles } from '../../src/diff/diff-recordings.js';
import type { DiffReport } from '../../src/diff/diff-report.js';
import { openRecording } from '../../src/store/open-recording.js';
import { scanSide } from '../../src/diff/scan-side.js';
import { writeNdjsonRecording, type HandMessage } from '../support/ndjson-recording.js';

const frame = (i: number): HandMessage => ({ sender: 'server', json: { type: 'queue_update', followUp: [`msg ${i}`], steering: [] } });
const response = (id: string, extra: Record<string, unknown> = {}): HandMessage => ({ sender: 'server', json: { type: 'response', id, ...extra } });

/** A WebSocket of `filler` frames between ids learnt at its start, in its middle and just before the change; B has one more message. */
function pair(filler: number): [string, string] {
  const start = [response('req-0001aaaa'), ...Array.from({ length: filler }, (_, i) => frame(i)), response('req-0002bbbb'), ...Array.from({ length: filler }, (_, i) => frame(filler + i))];
  const end = [frame(-1), response('req-0003cccc')];
  const inserted = response('req-0004dddd', { echo: ['req-0001aaaa', 'req-0002bbbb', 'req-0003cccc'] });
  const side = (messages: HandMessage[], name: string) =>
    writeNdjsonRecording([{ protocol: 'pi-rpc', path: '/ws', messages: [{ sender: 'client', json: { type: 'prompt', id: 'req-0000ffff' } }, ...messages] }], name);
  return [side([...start, ...end, frame(-2)], 'a.ndjson'), side([...start, ...end, inserted, frame(-2)], 'b.ndjson')];
}

/** The report with message places made relative to the inserted message (the short and the long pair differ in length only). */
function relative(report: DiffReport): unknown {
  const added = report.exchanges[0].messages[0].b!.seq;
  const place = (ref: { seq: number } | null) => ref && { ...ref, seq: ref.seq - added };
  return {
    ...report,
    a: { ...report.a, file: 'a', messages: 0 },
    b: { ...report.b, file: 'b', messages: 0 },
    exchanges: report.exchanges.map((e) => ({ ...e, messages: e.messages.map((m) => ({ ...m, a: place(m.a), b: place(m.b), before: place(m.before), after: place(m.after) })) })),
  };
}

describe('diff of a long exchange that differs near its end', () => {
  it('reads it again from near where the sides part, and reports what reading it all reports', () => {
    const [longA, longB] = pair(3 * PREFIX_STEP);
    const [shortA, shortB] = pair(10);
    const long = diffRecordingFiles(longA, longB);
    const short = diffRecordingFiles(shortA, shortB);

    // Not vacuous: the long pair is read from past its second checkpoint, the short one from its start.
    const starts = [[longA, longB], [shortA, shortB]].map((files) => {
      const [a, b] = files.map((file) => {
        const reader = openRecording(file);
        try {
          return scanSide({ file, dbFile: reader.file }, { ignore: [], semantic: false });
        } finally {
          reader.close();
        }
      });
      return commonStart(a.keys[0].prefixes, b.keys[0].prefixes);
    });
    expect(starts[0]!.a.skip).toBeGreaterThanOrEqual(6 * PREFIX_STEP - 1);
    expect(starts[1]).toBeUndefined();

    expect(long.exchanges).toHaveLength(1);
    const [added] = long.exchanges[0].messages;
    expect(added.change).toBe('added');
    // The context: the id learnt just before the change, and the frame after it.
    expect(added.before?.label).toBe('response');
    expect(added.after?.seq).toBe(added.before!.seq + 1);
    // Ids labelled in order of appearance across the skipped start: the prompt's, then three responses', then its own.
    const byPointer = Object.fromEntries(added.differences.map((d) => [d.pointer, d.b]));
    expect(byPointer['/id']).toBe(short.exchanges[0].messages[0].differences.find((d) => d.pointer === '/id')?.b);
    expect(byPointer['/echo']).toEqual(short.exchanges[0].messages[0].differences.find((d) => d.pointer === '/echo')?.b);
    expect(new Set([byPointer['/id'], ...(byPointer['/echo'] as string[])]).size).toBe(4);
    expect(relative(long)).toEqual(relative(short));
  });
});
