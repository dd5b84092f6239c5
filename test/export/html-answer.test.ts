/**
 * A model answer in the HTML view: what `show --exchange` prints of it (how it ended, tokens, each
 * output's reasoning, text, refusal and tool calls), as escaped text, long text cut.
 */
import { describe, expect, it } from 'vitest';
import { answerHtml } from '../../src/export/html-answer.js';
import type { AssembledAnswer } from '../../src/protocols/assembled-answer.js';
import { parseXml, type XmlElement } from '../support/xml.js';

const textOf = (el: XmlElement): string => el.text + el.children.map(textOf).join('');

function answer(overrides: Partial<AssembledAnswer>): AssembledAnswer {
  return { api: 'chat.completions', model: 'm', id: 'c1', streamed: true, chunks: 3, outputs: [], usage: null, error: null, complete: true, ...overrides };
}

function rows(html: string): string[][] {
  return parseXml(html).children[1]!.children.map((tr) => tr.children.map(textOf));
}

describe('answerHtml', () => {
  it('an exchange with no answer says so', () => {
    expect(textOf(parseXml(answerHtml(null)))).toBe('answer: none (no model answer in this exchange)');
  });

  it('how it ended: stopped, an error, or cut short', () => {
    const heading = (a: AssembledAnswer) => textOf(parseXml(answerHtml(a)).children[0]!);
    expect(heading(answer({ outputs: [{ index: 0, text: 'x', reasoning: '', refusal: null, toolCalls: [], stopReason: 'stop' }] }))).toBe('answer (chat.completions, m, streamed in 3 chunks): stopped: stop');
    expect(heading(answer({ streamed: false, chunks: 0, model: null, error: 'rate_limit_exceeded: <slow down>' }))).toBe('answer (chat.completions, no model named, answered whole): error rate_limit_exceeded: <slow down>');
    expect(heading(answer({ complete: false, chunks: 1 }))).toBe('answer (chat.completions, m, streamed in 1 chunk): did not end (no stop reason)');
  });

  it('each output, named by its choice when there are several; tool calls with arguments that are not JSON say so; long text cut', () => {
    const html = answerHtml(
      answer({
        usage: { input: 12, output: null },
        outputs: [
          { index: 0, text: 'y'.repeat(5000), reasoning: 'think <b>', refusal: null, toolCalls: [], stopReason: 'length' },
          { index: 1, text: '', reasoning: '', refusal: 'no', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":', argumentsError: 'not JSON: Unexpected end' }, { id: null, name: null, arguments: '{}', parsed: {} }], stopReason: 'tool_calls' },
        ],
      }),
    );
    expect(rows(html)).toEqual([
      ['tokens', '12 in, ? out'],
      ['choice 0 reasoning', 'think <b>'],
      ['choice 0 text', `${'y'.repeat(4000)}… (1,000 more characters)`],
      ['choice 1 refusal', 'no'],
      ['choice 1 tool call get_weather (call_1)', '{"city":\n(arguments not JSON: Unexpected end)'],
      ['choice 1 tool call (no name)', '{}'],
    ]);
  });
});
