import type { AssembledAnswer, ModelTokens } from '../protocols/assembled-answer.js';
import { tokensByModel } from '../protocols/assembled-answer.js';
import { viewMessage } from '../protocols/view-message.js';
import type { ViewMessage } from '../protocols/inspector-views.js';
import { viewsOf } from '../protocols/modules.js';
import type { Style } from '../core/style.js';
import { escapeControls as safe } from '../core/terminal-text.js';
import type { ExchangeRow, MessageRow, RecordingReader } from '../store/recording-reader.js';

/*
 * The model answers `show` prints: each LLM exchange's answer as its protocol assembles it
 * (ProtocolViews.answer, the inspector's Answer tab too), and a recording's tokens by model. Loaded
 * by `show` only when it runs, with the protocol modules it needs.
 */

/** The exchange's answer; undefined when its protocol assembles none, null when it holds none (embeddings). */
export function answerOf(exchange: Pick<ExchangeRow, 'protocol'>, messages: readonly MessageRow[]): AssembledAnswer | null | undefined {
  return assemblesAnswers(exchange) ? answerOfViews(exchange, messages.map(viewMessage)) : undefined;
}

/** Does the exchange's protocol assemble answers (then answerOf needs its messages)? */
export function assemblesAnswers(exchange: Pick<ExchangeRow, 'protocol'>): boolean {
  return viewsOf(exchange.protocol)?.answer !== undefined;
}

/** answerOf, from the messages as the views read them (viewMessage): what a listing read a page at a time keeps of each. */
export function answerOfViews(exchange: Pick<ExchangeRow, 'protocol'>, messages: readonly ViewMessage[]): AssembledAnswer | null | undefined {
  return viewsOf(exchange.protocol)?.answer?.(messages);
}

/** Tokens in and out by model over every exchange whose protocol assembles answers. */
export function recordingTokens(reader: RecordingReader, rows: readonly ExchangeRow[]): ModelTokens[] {
  const answers: AssembledAnswer[] = [];
  for (const e of rows) {
    if (viewsOf(e.protocol)?.answer === undefined) continue;
    const answer = answerOf(e, reader.messages(e.id));
    if (answer) answers.push(answer);
  }
  return tokensByModel(answers);
}

/** `tokens  gpt-4o-mini: 3 answers, 120 in, 45 out`, one line per model; none when no model answered. */
export function tokenLines(rows: readonly ModelTokens[]): string[] {
  return rows.map((r) => `tokens  ${safe(r.model)}: ${r.answers} answer${r.answers === 1 ? '' : 's'}, ${r.input} in, ${r.output} out${r.withoutUsage > 0 ? ` (${r.withoutUsage} reported no usage)` : ''}`);
}

/**
 * An answer as `show --exchange` prints it after the messages: how it ended and what it used, then per
 * output its reasoning, text, refusal and tool calls (arguments parsed, or why they are not JSON).
 */
export function answerLines(answer: AssembledAnswer | null, style: Style): string[] {
  if (answer === null) return ['  answer: none (no model answer in this exchange)'];
  const how = answer.streamed ? `streamed in ${answer.chunks} chunk${answer.chunks === 1 ? '' : 's'}` : 'answered whole';
  const stops = [...new Set(answer.outputs.map((o) => o.stopReason).filter((s) => s !== null))].map(safe);
  const ending = answer.error !== null ? style.red(`error ${safe(answer.error)}`) : answer.complete ? `stopped: ${stops.join(', ')}` : style.yellow('did not end (no stop reason)');
  const lines = [`  answer (${answer.api}, ${answer.model === null ? 'no model named' : safe(answer.model)}, ${how}): ${ending}`];
  lines.push(`    tokens: ${answer.usage === null ? 'no usage reported' : `${answer.usage.input ?? '?'} in, ${answer.usage.output ?? '?'} out`}`);
  for (const o of answer.outputs) {
    const at = answer.outputs.length > 1 ? `choice ${o.index} ` : '';
    if (o.reasoning !== '') lines.push(`    ${at}reasoning: ${quoted(o.reasoning)}`);
    if (o.text !== '' || o.toolCalls.length === 0) lines.push(`    ${at}text: ${quoted(o.text)}${answer.outputs.length > 1 && o.stopReason ? ` (${safe(o.stopReason)})` : ''}`);
    if (o.refusal !== null) lines.push(`    ${at}refusal: ${quoted(o.refusal)}`);
    for (const c of o.toolCalls) {
      const args = c.argumentsError === undefined ? safe(c.arguments) : `${quoted(c.arguments)} ${style.red(`(arguments ${safe(c.argumentsError)})`)}`;
      lines.push(`    ${at}tool call ${c.name === null ? '(no name)' : safe(c.name)}${c.id === null ? '' : ` (${safe(c.id)})`}: ${args}`);
    }
  }
  return lines;
}

/** Text as one JSON string: its line breaks and control characters (C1 and DEL too) stay visible on one line. */
function quoted(text: string): string {
  return safe(JSON.stringify(text));
}
