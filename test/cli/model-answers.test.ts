/**
 * What `show` prints of a model's answer and of a recording's tokens: each choice of an answer with
 * several, a refusal, an error, a stream cut short, arguments that are not JSON; and a peer's text
 * reaches the terminal with its control characters escaped, wherever it is printed.
 */
import { describe, expect, it } from 'vitest';
import { answerLines, tokenLines } from '../../src/cli/model-answers.js';
import type { AssembledAnswer } from '../../src/protocols/assembled-answer.js';
import { toolCallOf, tokensByModel } from '../../src/protocols/assembled-answer.js';

const plain = { red: (s: string) => `<red>${s}</red>`, green: (s: string) => s, yellow: (s: string) => `<yellow>${s}</yellow>`, dim: (s: string) => s, bold: (s: string) => s };
const base: AssembledAnswer = { api: 'chat.completions', model: 'm', id: 'c1', streamed: true, chunks: 3, outputs: [], usage: { input: 7, output: 2 }, error: null, complete: true };
const output = { index: 0, text: '', reasoning: '', refusal: null, toolCalls: [], stopReason: 'stop' };

describe('an answer as show prints it', () => {
  it('names each choice of an answer with several, with its own stop reason', () => {
    const answer = { ...base, outputs: [{ ...output, text: 'one\ntwo', reasoning: 'hm' }, { ...output, index: 1, refusal: 'no', stopReason: 'length' }] };
    expect(answerLines(answer, plain)).toEqual([
      '  answer (chat.completions, m, streamed in 3 chunks): stopped: stop, length',
      '    tokens: 7 in, 2 out',
      '    choice 0 reasoning: "hm"',
      '    choice 0 text: "one\\ntwo" (stop)',
      '    choice 1 text: "" (length)',
      '    choice 1 refusal: "no"',
    ]);
  });

  it('says an error, a stream cut short, no usage, and arguments that are not JSON', () => {
    const cut = { ...base, usage: null, complete: false, outputs: [{ ...output, stopReason: null, toolCalls: [toolCallOf('call_1', 'get_weather', '{"ci')] }] };
    expect(answerLines(cut, plain)).toEqual([
      '  answer (chat.completions, m, streamed in 3 chunks): <yellow>did not end (no stop reason)</yellow>',
      '    tokens: no usage reported',
      expect.stringMatching(/^ {4}tool call get_weather \(call_1\): "\{\\"ci" <red>\(arguments not JSON: .+\)<\/red>$/) as unknown,
    ]);
    expect(answerLines({ ...base, error: 'rate_limit_exceeded: slow down', complete: false }, plain)[0]).toBe('  answer (chat.completions, m, streamed in 3 chunks): <red>error rate_limit_exceeded: slow down</red>');
    expect(answerLines(null, plain)).toEqual(['  answer: none (no model answer in this exchange)']);
  });

  it("escapes a peer's control characters: the model, a tool's name and id, its arguments, the text", () => {
    const esc = '\u001b[2J\u0007\u009b';
    const answer = { ...base, model: `m${esc}`, outputs: [{ ...output, text: `t${esc}`, stopReason: `s${esc}`, toolCalls: [toolCallOf(`id${esc}`, `n${esc}`, JSON.stringify({ a: esc }))] }] };
    const printed = answerLines(answer, plain).join('\n') + tokenLines(tokensByModel([answer])).join('\n');
    // eslint-disable-next-line no-control-regex
    expect(printed).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(printed).toContain('tool call n\\e[2J\\x07\\u009b (id\\e[2J\\x07\\u009b)');
  });
});

describe('tokens by model', () => {
  it('sums each model\'s answers in the order they first answered, counting those that reported no usage', () => {
    const rows = tokensByModel([base, { ...base, model: 'other', usage: { input: 1, output: null } }, { ...base, usage: null }, { ...base, model: null }]);
    expect(rows).toEqual([
      { model: 'm', answers: 2, input: 7, output: 2, withoutUsage: 1 },
      { model: 'other', answers: 1, input: 1, output: 0, withoutUsage: 0 },
      { model: '(no model named)', answers: 1, input: 7, output: 2, withoutUsage: 0 },
    ]);
    expect(tokenLines(rows)).toEqual(['tokens  m: 2 answers, 7 in, 2 out (1 reported no usage)', 'tokens  other: 1 answer, 1 in, 0 out', 'tokens  (no model named): 1 answer, 7 in, 2 out']);
  });
});
