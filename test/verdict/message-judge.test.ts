import { describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../src/core/message.js';
import { verdictFrom } from '../../src/core/verdict.js';
import type { ProtocolChecker } from '../../src/protocols/protocol.js';
import { MessageJudge } from '../../src/verdict/message-judge.js';
import { SecretTracker } from '../../src/verdict/secret-tracker.js';

const message = (value: unknown): InboundMessage => ({ sender: 'server', carrier: 'event', value, text: JSON.stringify(value) });

/** A checker with a bug: it throws on the message `{"boom":true}` and judges everything else valid. */
function buggyChecker(options: { throwOnEnd?: boolean } = {}): ProtocolChecker & { judged: number } {
  return {
    judged: 0,
    judge(m) {
      this.judged++;
      if ((m.value as { boom?: boolean }).boom) throw new TypeError("Cannot read properties of undefined (reading 'length')");
      return verdictFrom([]);
    },
    end() {
      if (options.throwOnEnd) throw new RangeError('Maximum call stack size exceeded');
      return [];
    },
  };
}

describe('MessageJudge', () => {
  it('turns a checker that throws into a checker-failed warning and stops judging the exchange', () => {
    const checker = buggyChecker();
    const judge = new MessageJudge(checker, new SecretTracker());
    expect(judge.judge(message({ ok: 1 })).status).toBe('valid');

    const failed = judge.judge(message({ boom: true }));
    expect(failed.status).toBe('unchecked');
    expect(failed.findings).toEqual([expect.objectContaining({ rule: 'checker-failed', severity: 'warning', pointer: '' })]);
    expect(failed.findings[0].message).toContain("reading 'length'");

    // Its state is not to be trusted after that: later messages are not handed to it.
    const later = judge.judge(message({ ok: 2 }));
    expect(later).toMatchObject({ status: 'unchecked', findings: [] });
    expect(later.reason).toContain('failed on an earlier message');
    expect(checker.judged).toBe(2);
    expect(judge.end('complete')).toEqual([]);
  });

  it('turns a checker whose end throws into one checker-failed finding', () => {
    const judge = new MessageJudge(buggyChecker({ throwOnEnd: true }), new SecretTracker());
    expect(judge.judge(message({ ok: 1 })).status).toBe('valid');
    expect(judge.end('aborted')).toEqual([expect.objectContaining({ rule: 'checker-failed', severity: 'warning' })]);
  });

  it('still reports unparseable messages as invalid-json after the checker failed', () => {
    const judge = new MessageJudge(buggyChecker(), new SecretTracker());
    judge.judge(message({ boom: true }));
    const bad = judge.judge({ sender: 'server', carrier: 'event', value: undefined, parseError: 'the message is not valid JSON' });
    expect(bad).toMatchObject({ status: 'invalid', findings: [expect.objectContaining({ rule: 'invalid-json' })] });
  });
});
