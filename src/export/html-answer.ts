import type { AssembledAnswer } from '../protocols/assembled-answer.js';
import { cutText, element, textIn } from './html-text.js';

/** Characters of an answer's text, reasoning or tool-call arguments shown; the messages have the rest. */
const ANSWER_CHARS = 4000;

/**
 * A model's answer in the HTML view, as its protocol assembles it (ProtocolViews.answer, which `show
 * --exchange` prints and the inspector's Answer tab draws): how it ended and what it used, then per
 * output its reasoning, text, refusal and tool calls.
 */
export function answerHtml(answer: AssembledAnswer | null): string {
  if (answer === null) return textIn('p', { class: 'answer dim' }, 'answer: none (no model answer in this exchange)');
  const how = answer.streamed ? `streamed in ${answer.chunks} chunk${answer.chunks === 1 ? '' : 's'}` : 'answered whole';
  const stops = [...new Set(answer.outputs.map((o) => o.stopReason).filter((s) => s !== null))];
  const ending =
    answer.error !== null ? textIn('span', { class: 'error' }, `error ${answer.error}`) : answer.complete ? textIn('span', {}, `stopped: ${stops.join(', ')}`) : textIn('span', { class: 'warning' }, 'did not end (no stop reason)');
  const rows: string[] = [row('tokens', answer.usage === null ? 'no usage reported' : `${answer.usage.input ?? '?'} in, ${answer.usage.output ?? '?'} out`)];
  for (const o of answer.outputs) {
    const at = answer.outputs.length > 1 ? `choice ${o.index} ` : '';
    if (o.reasoning !== '') rows.push(row(`${at}reasoning`, o.reasoning, true));
    if (o.text !== '' || o.toolCalls.length === 0) rows.push(row(`${at}text`, o.text, true));
    if (o.refusal !== null) rows.push(row(`${at}refusal`, o.refusal, true));
    for (const c of o.toolCalls) {
      const name = `${at}tool call ${c.name ?? '(no name)'}${c.id === null ? '' : ` (${c.id})`}`;
      rows.push(row(name, c.argumentsError === undefined ? c.arguments : `${c.arguments}\n(arguments ${c.argumentsError})`, true));
    }
  }
  const heading = `${textIn('span', {}, `answer (${answer.api}, ${answer.model ?? 'no model named'}, ${how}): `)}${ending}`;
  return element('div', { class: 'answer' }, element('h3', {}, heading) + element('table', {}, rows.join('')));
}

function row(name: string, value: string, long = false): string {
  return element('tr', {}, textIn('th', {}, name) + (long ? element('td', {}, textIn('pre', {}, cutText(value, ANSWER_CHARS))) : textIn('td', {}, value)));
}
