import type { FieldRoles } from '../field-roles.js';
import type { ProtocolFacts } from '../protocol.js';
import { OPENAI_RULES as RULES } from './rules.js';
import { classifyOpenAi, openAiChannelEvidence } from './detection.js';
import { openAiMessageEvidence, sniffOpenAi } from './shapes.js';
import { answerOpenAiMiss } from './replay-miss.js';
import { openAiFaultAnswers } from './fault-answers.js';
import { openAiRouteTemplate } from './routes.js';
import { OPENAI_SCHEMAS } from './schemas.js';

/**
 * Its fields that are not plain data. The ids an earlier answer minted and the next request echoes
 * back (tool call ids with their results, Responses item ids) are matched by where they recur, not
 * by value: a recording made against the live model matches a run whose earlier answer had other
 * ids, but a tool result must still answer the call it answered. A stored response the request
 * continues is the server's id, which a replay serves as recorded. The fields a client sets per
 * user, session or cache change between runs without the agent deciding otherwise. Everything else
 * is what the agent decided, and is compared: the model, every message, the tools, `tool_choice`,
 * `response_format`, the sampling settings, and `stream` with `stream_options` (they choose the
 * answer's shape: a stream, a usage chunk).
 */
const FIELDS: FieldRoles = {
  '/messages/*/tool_calls/*/id': 'answer-id',
  '/messages/*/tool_call_id': 'answer-id',
  '/input/*/call_id': 'answer-id',
  '/input/*/id': 'answer-id',
  '/previous_response_id': 'server-id',
  '/user': 'volatile',
  '/metadata': 'volatile',
  '/prompt_cache_key': 'volatile',
  '/safety_identifier': 'volatile',
};

/** Which channels are OpenAI-compatible API calls, and how a replay matches and answers them. */
export const openAiReplayFacts: ProtocolFacts<'openai', 'http' | 'sse' | 'file'> = {
  id: 'openai',
  transports: ['http', 'sse', 'file'],
  schemas: OPENAI_SCHEMAS,
  classify: classifyOpenAi,
  channelEvidence: openAiChannelEvidence,
  sniff: sniffOpenAi,
  messageEvidence: openAiMessageEvidence,
  fields: FIELDS,
  answers: true,
  streamEndRules: [RULES.finishReasonMissing, RULES.roleMissing, RULES.usageMissing, RULES.doneMissing, RULES.terminalMissing],
  replay: {
    missAnswers: { http: answerOpenAiMiss, summary: "OpenAI API calls get a 404 in OpenAI's error shape" },
    faultAnswers: openAiFaultAnswers,
    routeTemplate: openAiRouteTemplate,
  },
};
