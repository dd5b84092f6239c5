import type { AssembledAnswer, AssembledOutput, AssembledToolCall } from '../api-types.js';
import { h, plural } from './dom.js';

/**
 * A model's answer as the client assembles it from the stream: which API and model, how it ended
 * (its stop reason, an error, or a stream cut short), the tokens it used, then per output its
 * reasoning, text, refusal and tool calls with their arguments parsed.
 */
export function renderAnswer(answer: AssembledAnswer | null): HTMLElement[] {
  if (answer === null) return [h('div', { class: 'dim', id: 'answer-none' }, 'No model answer in this exchange (an embeddings or model-list call, or no answer yet).')];
  const facts = [answer.api, answer.model ?? '(no model named)', answer.id, answer.streamed ? `streamed in ${plural(answer.chunks, 'chunk')}` : 'answered whole'].filter((f) => f !== null);
  const stops = [...new Set(answer.outputs.map((o) => o.stopReason).filter((s) => s !== null))];
  const outcome =
    answer.error !== null
      ? h('div', { class: 'outcome error', id: 'answer-outcome' }, `Error: ${answer.error}`)
      : answer.complete
        ? h('div', { class: 'outcome finished', id: 'answer-outcome' }, `Stopped: ${stops.join(', ')}`)
        : h('div', { class: 'outcome open', id: 'answer-outcome' }, 'The answer did not end (no stop reason): the stream was cut, or is still open');
  const usage = answer.usage === null ? 'no token usage reported' : `tokens: ${answer.usage.input ?? '?'} in, ${answer.usage.output ?? '?'} out`;
  const parts: HTMLElement[] = [outcome, h('div', { class: 'dim', id: 'answer-facts' }, facts.join(' · ')), h('div', { class: 'dim', id: 'answer-usage' }, usage)];
  for (const output of answer.outputs) parts.push(...outputParts(output, answer.outputs.length > 1));
  return parts;
}

function outputParts(output: AssembledOutput, several: boolean): HTMLElement[] {
  const who = (text: string) => h('div', { class: 'who' }, h('span', { class: 'role' }, several ? `choice ${output.index} · ${text}` : text));
  const parts: HTMLElement[] = [];
  if (output.reasoning !== '') parts.push(h('div', { class: 'run-item reasoning answer-reasoning' }, who('reasoning'), h('pre', {}, output.reasoning)));
  if (output.text !== '' || output.toolCalls.length === 0) parts.push(h('div', { class: 'run-item message assistant answer-text', 'data-choice': output.index }, who(`assistant${output.stopReason ? ` (${output.stopReason})` : ''}`), h('pre', {}, output.text || '(no text)')));
  if (output.refusal !== null) parts.push(h('div', { class: 'run-item message answer-refusal' }, who('refusal'), h('pre', {}, output.refusal)));
  for (const call of output.toolCalls) parts.push(toolCall(call, who));
  return parts;
}

function toolCall(call: AssembledToolCall, who: (text: string) => HTMLElement): HTMLElement {
  const args = call.argumentsError === undefined ? JSON.stringify(call.parsed, null, 2) : call.arguments;
  return h(
    'div',
    { class: `run-item tool-call answer-tool-call${call.argumentsError === undefined ? '' : ' invalid'}`, 'data-tool': call.name ?? '' },
    who(`tool call ${call.name ?? '(no name)'}${call.id === null ? '' : ` (${call.id})`}`),
    call.argumentsError === undefined ? '' : h('div', { class: 'status-bad' }, `arguments ${call.argumentsError}`),
    h('pre', {}, `args: ${args}`),
  );
}
