/**
 * The diff's first pass compares a message whose text and meta repeat an earlier one of its exchange by
 * that one's comparing text (ExchangeScan.repeats). Such a message must still be told apart by what is
 * its own: who sent it and on which channel, wherever it is in the stream. (Its verdict is part of the
 * same meta, and a message with findings is not taken from a repeat; a hand-written verdict cannot be
 * tested here, as diff judges an NDJSON recording's messages again.)
 */
import { describe, expect, it } from 'vitest';
import { diffRecordingFiles } from '../../src/diff/diff-recordings.js';
import { writeNdjsonRecording, type HandMessage } from '../support/ndjson-recording.js';

const chunk: HandMessage = { sender: 'server', json: { type: 'queue_update', followUp: ['same'], steering: [] } };
/** A WebSocket whose frames all repeat one text, but for the one at `at`, which is `odd`. */
function side(odd: HandMessage | undefined, at: number, name: string): string {
  const messages = Array.from({ length: 12 }, (_, i) => (i === at && odd ? odd : chunk));
  return writeNdjsonRecording([{ protocol: 'pi-rpc', path: '/ws', messages: [{ sender: 'client', json: { type: 'prompt', id: 'req-0000ffff' } }, ...messages] }], name);
}

describe('diff of a stream that repeats one text', () => {
  const plain = side(undefined, 0, 'a.ndjson');

  it('finds nothing between two such streams', () => {
    expect(diffRecordingFiles(plain, side(undefined, 0, 'b.ndjson')).equal).toBe(true);
  });

  const odd: Array<[string, HandMessage]> = [
    ['sent by the other side', { ...chunk, sender: 'client' }],
    ['on another channel', { ...chunk, channel: 'binary' }],
  ];
  for (const [what, message] of odd) {
    for (const at of [3, 11]) {
      it(`reports one of its repeats ${what} (message ${at + 2})`, () => {
        const report = diffRecordingFiles(plain, side(message, at, 'b.ndjson'));
        expect(report.equal).toBe(false);
        expect(report.exchanges).toHaveLength(1);
      });
    }
  }
});
