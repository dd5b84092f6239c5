/**
 * A small agent written as agents are, on the official `@anthropic-ai/sdk` client: it streams a
 * Messages call, runs each tool the model uses here in the process, sends the results back as
 * tool_result blocks, and calls the model again until it answers without a tool use. Its transcript
 * is what the agent saw and did, in order: the conversation it ends with (the model's turns as the
 * stream helper assembled them, the tool results it sent) and the final answer.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { CLAUDE_MODEL, CLAUDE_WEATHER_TOOL } from './anthropic-scenario.js';

/** The agent's one tool: the weather of a city, made up here. */
function getWeather(input: unknown): string {
  const { city } = input as { city?: string };
  return city === 'Paris' ? 'sunny, 21°C' : 'cloudy, 12°C';
}

export interface ClaudeAgentTranscript {
  /** The whole conversation as the agent last sent it, plus the final answer. */
  messages: Anthropic.MessageParam[];
  /** How many model calls it took. */
  calls: number;
  answer: string;
  /** The tool uses the agent ran: the name, the input, what the tool said. */
  ran: Array<{ name: string; input: unknown; result: string }>;
}

/** Runs the agent on one question, with at most `maxCalls` model calls. */
export async function runClaudeWeatherAgent(client: Anthropic, options: { system: string; question: string; maxCalls?: number }): Promise<ClaudeAgentTranscript> {
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: options.question }];
  const ran: ClaudeAgentTranscript['ran'] = [];
  for (let calls = 1; calls <= (options.maxCalls ?? 4); calls++) {
    const message = await client.messages.stream({ model: CLAUDE_MODEL, max_tokens: 256, system: options.system, messages, tools: [CLAUDE_WEATHER_TOOL] }).finalMessage();
    messages.push({ role: 'assistant', content: message.content });
    const toolUses = message.content.flatMap((block) => (block.type === 'tool_use' ? [block] : []));
    if (toolUses.length === 0) return { messages, calls, answer: message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''), ran };
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const use of toolUses) {
      const result = getWeather(use.input);
      ran.push({ name: use.name, input: use.input, result });
      results.push({ type: 'tool_result', tool_use_id: use.id, content: result });
    }
    messages.push({ role: 'user', content: results });
  }
  throw new Error(`the agent made ${options.maxCalls ?? 4} model calls without an answer`);
}
