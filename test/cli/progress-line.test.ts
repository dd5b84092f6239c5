import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgress } from '../../src/cli/progress-line.js';

/** A stream that says it is a terminal (or not), keeping what is written to it. */
function terminal(isTTY: boolean): Writable & { isTTY: boolean; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  return Object.assign(stream, { isTTY, text: () => chunks.join('') });
}

describe('createProgress', () => {
  it('on a terminal, rewrites one line in place every 1% of a long read, and clears it at the end', () => {
    const tty = terminal(true);
    const progress = createProgress(tty, 'validating messages:', 200_000);
    for (let i = 0; i < 200_000; i++) progress.tick();
    progress.done();
    const draws = tty.text().split('\r').filter(Boolean);
    expect(draws).toHaveLength(101);
    expect(draws[0]).toBe('validating messages: 2,000 of 200,000 (1%)\x1b[K');
    expect(draws[99]).toBe('validating messages: 200,000 of 200,000 (100%)\x1b[K');
    // The last write clears the line, leaving the terminal as it was.
    expect(draws[100]).toBe('\x1b[K');
    expect(tty.text().endsWith('\r\x1b[K')).toBe(true);
  });

  it('counts ticks of more than one', () => {
    const tty = terminal(true);
    const progress = createProgress(tty, 'importing', 100_000);
    progress.tick(50_000);
    progress.tick(50_000);
    progress.done();
    expect(tty.text()).toBe('\rimporting 50,000 of 100,000 (50%)\x1b[K\rimporting 100,000 of 100,000 (100%)\x1b[K\r\x1b[K');
  });

  it('without a total, says nothing until the read is long, then every 10,000', () => {
    const tty = terminal(true);
    const progress = createProgress(tty, 'exporting', undefined);
    progress.tick(99_999);
    expect(tty.text()).toBe('');
    progress.tick(1);
    progress.tick(10_000);
    progress.done();
    expect(tty.text()).toBe('\rexporting 100,000\x1b[K\rexporting 110,000\x1b[K\r\x1b[K');
  });

  it('writes nothing to what is not a terminal, nor for a short read', () => {
    const pipe = terminal(false);
    const long = createProgress(pipe, 'exporting', 500_000);
    long.tick(500_000);
    long.done();
    expect(pipe.text()).toBe('');

    const tty = terminal(true);
    const short = createProgress(tty, 'exporting', 99_999);
    short.tick(99_999);
    short.done();
    expect(tty.text()).toBe('');
  });

  it('takes the terminal check it is given', () => {
    const pipe = terminal(false);
    const progress = createProgress(pipe, 'exporting', 10, { isTTY: () => true, minimum: 0 });
    progress.tick(10);
    progress.done();
    expect(pipe.text()).toBe('\rexporting 10 of 10 (100%)\x1b[K\r\x1b[K');
  });
});
