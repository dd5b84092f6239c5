import type { FieldRoles } from '../field-roles.js';
import type { ProtocolFacts } from '../protocol.js';
import { ANTHROPIC_RULES as RULES } from './rules.js';
import { anthropicChannelEvidence, classifyAnthropic } from './detection.js';
import { anthropicMessageEvidence, sniffAnthropic } from './shapes.js';
import { answerAnthropicMiss } from './replay-miss.js';
import { anthropicFaultAnswers } from './fault-answers.js';
import { anthropicRouteTemplate } from './routes.js';
import { ANTHROPIC_SCHEMAS } from './schemas.js';

/**
 * Its fields that are not plain data. The tool_use ids an answer minted, which the next request
 * echoes back in the assistant turn and its tool_result, are matched by where they recur, not by
 * value: a recording made against the live model matches a run whose earlier answer had other ids,
 * but a tool_result must still answer the call it answered. `metadata` (its `user_id`) is set per
 * user, not decided by the agent. Everything else is what the agent decided, and is compared: the
 * model, the system prompt, every message, the tools, `tool_choice`, `thinking`, the sampling
 * settings, and `stream` (it chooses the answer's shape). The ids an answer mints are the server's.
 */
const FIELDS: FieldRoles = {
  '/messages/*/content/*/id': 'answer-id',
  '/messages/*/content/*/tool_use_id': 'answer-id',
  '/metadata': 'volatile',
  // The ids the answer mints, labelled by diff: the Message's (whole, or in message_start) and its tool uses'.
  '/message/id': 'server-id',
  '/content/*/id': 'server-id',
  '/content_block/id': 'server-id',
};

/** Which channels are Messages API calls, and how a replay matches and answers them. */
export const anthropicReplayFacts: ProtocolFacts<'anthropic', 'http' | 'sse' | 'file'> = {
  id: 'anthropic',
  transports: ['http', 'sse', 'file'],
  schemas: ANTHROPIC_SCHEMAS,
  classify: classifyAnthropic,
  channelEvidence: anthropicChannelEvidence,
  sniff: sniffAnthropic,
  messageEvidence: anthropicMessageEvidence,
  fields: FIELDS,
  answers: true,
  streamEndRules: [RULES.stopMissing],
  replay: {
    missAnswers: { http: answerAnthropicMiss, summary: "Anthropic Messages calls get a 404 in Anthropic's error shape" },
    faultAnswers: anthropicFaultAnswers,
    routeTemplate: anthropicRouteTemplate,
  },
};
