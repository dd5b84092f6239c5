import { error, pointerOf, type Finding } from '../../core/finding.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import { ANTHROPIC_RULES as RULES } from './rules.js';

/** The findings of a Messages (or count_tokens) request's own rules: tool results that answer a call, a tool_choice that names an offered tool. */
export function requestFindings(body: JsonObject): Finding[] {
  return [...toolResults(body), ...toolChoice(body)];
}

/** The ids of the tool_use blocks of an assistant message. */
function toolUseIds(message: unknown): Set<string> {
  const ids = new Set<string>();
  if (!isJsonObject(message) || message.role !== 'assistant' || !Array.isArray(message.content)) return ids;
  for (const block of message.content) if (isJsonObject(block) && block.type === 'tool_use' && typeof block.id === 'string') ids.add(block.id);
  return ids;
}

/** The assistant turn before message `at`: the API merges consecutive user messages into one turn. */
function assistantTurnBefore(messages: readonly unknown[], at: number): unknown {
  let before = at - 1;
  while (before >= 0 && isJsonObject(messages[before]) && (messages[before] as JsonObject).role === 'user') before--;
  return messages[before];
}

/**
 * Each tool_result answers a tool_use of the assistant turn just before its own: the API refuses
 * (400) a tool_result whose tool_use_id that turn did not make.
 */
function toolResults(body: JsonObject): Finding[] {
  if (!Array.isArray(body.messages)) return [];
  const messages: unknown[] = body.messages;
  const findings: Finding[] = [];
  messages.forEach((message, at) => {
    if (!isJsonObject(message) || message.role !== 'user' || !Array.isArray(message.content)) return;
    let made: Set<string> | undefined;
    message.content.forEach((block, b) => {
      if (!isJsonObject(block) || block.type !== 'tool_result' || typeof block.tool_use_id !== 'string') return;
      made ??= toolUseIds(assistantTurnBefore(messages, at));
      if (made.has(block.tool_use_id)) return;
      const what = made.size > 0 ? `it made ${[...made].map((id) => `'${id}'`).join(', ')}` : 'it made no tool call';
      findings.push(error(RULES.toolResultUnknownId, pointerOf('messages', at, 'content', b, 'tool_use_id'), `tool_result answers '${block.tool_use_id}', which the assistant turn just before never called (${what}); the API refuses it (400)`));
    });
  });
  return findings;
}

function toolChoice(body: JsonObject): Finding[] {
  const choice = body.tool_choice;
  if (!isJsonObject(choice) || choice.type !== 'tool' || typeof choice.name !== 'string') return [];
  const offered = Array.isArray(body.tools) && body.tools.some((tool) => isJsonObject(tool) && tool.name === choice.name);
  if (offered) return [];
  return [error(RULES.toolChoiceUnknownTool, '/tool_choice/name', `tool_choice names '${choice.name}', which tools does not offer; the API refuses it (400)`)];
}
