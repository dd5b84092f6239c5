import { describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../src/core/message.js';
import { valueNestsDeeperThan } from '../../src/core/json-depth.js';
import { stringifyJson } from '../../src/core/json-text.js';
import { unchecked, verdictFrom } from '../../src/core/verdict.js';
import type { ProtocolChecker } from '../../src/protocols/protocol.js';
import { MessageJudge } from '../../src/judge/message-judge.js';
import { SecretTracker } from '../../src/judge/secret-tracker.js';

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

  it('never hands a message nested deeper than 512 levels to the checker whole: unchecked, and the checker follows its top', () => {
    const seen: unknown[] = [];
    const checker: ProtocolChecker = {
      judge(m) {
        // A recursive walk, as schema validation and normalizing are.
        JSON.stringify(m.value);
        seen.push(m.value);
        return verdictFrom([]);
      },
      end: () => [],
    };
    const judge = new MessageJudge(checker, new SecretTracker());
    const deep = JSON.parse(`{"id":"r1","data":${'['.repeat(100_000)}${']'.repeat(100_000)}}`) as unknown;
    const verdict = judge.judge({ sender: 'server', carrier: 'event', value: deep });
    expect(verdict).toEqual({
      status: 'unchecked',
      reason: 'not judged: nests deeper than 512 levels',
      findings: [expect.objectContaining({ rule: 'json-too-deep', severity: 'warning', pointer: '' })],
    });
    // It saw the message cut short: its id, and nothing deeper than 512 levels.
    expect((seen[0] as { id: string }).id).toBe('r1');
    expect(valueNestsDeeperThan(seen[0], 512)).toBe(false);
    // A caller that scanned the text already says so; the next message is judged as usual.
    expect(judge.judge({ ...message({ ok: 1 }), tooDeep: true }).reason).toBe('not judged: nests deeper than 512 levels');
    expect(judge.judge(message({ ok: 2 })).status).toBe('valid');
    expect(seen).toHaveLength(3);
  });

  it('finds a leaked secret at any depth, and names where', () => {
    const secrets = new SecretTracker();
    secrets.register('TOKEN', 'leaked-secret-value-1234');
    const judge = new MessageJudge({ judge: () => verdictFrom([]), end: () => [] }, secrets);
    const deep = JSON.parse(`${'{"a":'.repeat(100_000)}["x","…leaked-secret-value-1234…"]${'}'.repeat(100_000)}`) as unknown;
    const verdict = judge.judge({ sender: 'server', carrier: 'body', value: deep });
    expect(verdict.status).toBe('invalid');
    const leak = verdict.findings.find((f) => f.rule === 'secret-leak')!;
    expect(leak.pointer === '/a'.repeat(100_000) + '/1').toBe(true);
    // What is stored has it replaced, at the same depth.
    const stored = stringifyJson(secrets.scrubValue(deep))!;
    expect(stored.endsWith('["x","…<redacted>…"]' + '}'.repeat(100_000))).toBe(true);
  });

  it('scrubs a known secret from the verdict, keeping its status and schema ref, and adds no field', () => {
    const secrets = new SecretTracker();
    secrets.register('TOKEN', 'leaked-secret-value-1234');
    const said = 'not judged: the upstream echoed leaked-secret-value-1234';
    const judge = new MessageJudge({ judge: () => unchecked(said, [], 'ref#/$defs/Event'), end: () => [] }, secrets);
    const verdict = judge.judge({ sender: 'client', carrier: 'body', value: { ok: true } });
    expect(Object.keys(verdict)).toEqual(['status', 'schemaRef', 'findings', 'reason']);
    expect(verdict).toEqual({ status: 'unchecked', schemaRef: 'ref#/$defs/Event', findings: [], reason: secrets.scrub(said) });
    expect(verdict.reason).not.toContain('leaked-secret-value-1234');
    const valid = new MessageJudge({ judge: () => verdictFrom([]), end: () => [] }, secrets).judge({ sender: 'client', carrier: 'body', value: { ok: true } });
    expect(Object.keys(valid)).toEqual(['status', 'findings']);
  });
});
