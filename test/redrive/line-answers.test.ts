/** LineAnswers: a wait ends once enough lines have come, once the other side has ended, or once the wait is over. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineAnswers } from '../../src/redrive/line-answers.js';
import { within } from '../support/waits.js';

describe('LineAnswers', () => {
  it('counts complete lines only, across chunks, and keeps their text', async () => {
    const from = new PassThrough();
    const answers = new LineAnswers(from);
    let done = false;
    const two = answers.wait(2, 60_000).then(() => (done = true));
    from.write('{"a":1}\n{"b"');
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    from.write(':2}\n');
    await within(two, 'the second line');
    expect(answers.received).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('ends every wait when the other side ends, and a wait for what never comes once its time is over', async () => {
    const answers = new LineAnswers(new PassThrough());
    const never = answers.wait(Number.POSITIVE_INFINITY, 60_000);
    answers.end();
    await within(never, 'the wait to end with the stream');
    expect(answers.hasEnded).toBe(true);
    await within(new LineAnswers(new PassThrough()).wait(1, 1), 'a 1 ms wait to be over');
  });
});
