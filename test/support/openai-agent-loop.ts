/**
 * A small agent written as agents are, on the official `openai` client: it streams a model call,
 * runs each tool the model calls here in the process, sends the results back, and calls the model
 * again until it answers in text. Its transcript is what the agent saw and did, in order: the
 * conversation it ends with (the model's messages as the stream helper assembled them, the tool
 * results it sent) and the final answer.
 */
import type OpenAI from 'openai';
import { STANDIN_MODEL, WEATHER_TOOL } from './openai-scenario.js';

/** The agent's one tool: the weather of a city, made up here. */
function getWeather(args: string): string {
  const { city } = JSON.parse(args) as { city?: string };
  return city === 'Paris' ? 'sunny, 21°C' : 'cloudy, 12°C';
}

export interface AgentTranscript {
  /** The whole conversation as the agent last sent it, plus the final answer. */
  messages: OpenAI.ChatCompletionMessageParam[];
  /** How many model calls it took. */
  calls: number;
  answer: string | null;
  /** The tool calls the agent ran: the name, the arguments, what the tool said. */
  ran: Array<{ name: string; arguments: string; result: string }>;
}

/** Runs the agent on one question, with at most `maxCalls` model calls. */
export async function runWeatherAgent(client: OpenAI, options: { system: string; question: string; maxCalls?: number }): Promise<AgentTranscript> {
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'system', content: options.system },
    { role: 'user', content: options.question },
  ];
  const ran: AgentTranscript['ran'] = [];
  for (let calls = 1; calls <= (options.maxCalls ?? 4); calls++) {
    const completion = await client.chat.completions.stream({ model: STANDIN_MODEL, messages, tools: [WEATHER_TOOL], stream_options: { include_usage: true } }).finalChatCompletion();
    const message = completion.choices[0].message;
    messages.push({ role: 'assistant', content: message.content, ...(message.tool_calls?.length ? { tool_calls: message.tool_calls } : {}) });
    const toolCalls = (message.tool_calls ?? []).flatMap((call) => (call.type === 'function' ? [call] : []));
    if (toolCalls.length === 0) return { messages, calls, answer: message.content, ran };
    for (const call of toolCalls) {
      const result = getWeather(call.function.arguments);
      ran.push({ name: call.function.name, arguments: call.function.arguments, result });
      messages.push({ role: 'tool', tool_call_id: call.id, content: result });
    }
  }
  throw new Error(`the agent made ${options.maxCalls ?? 4} model calls without an answer`);
}
