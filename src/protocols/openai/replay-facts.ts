import type { FieldRoles } from '../field-roles.js';
import type { ProtocolFacts } from '../protocol.js';
import { OPENAI_RULES as RULES } from './rules.js';
import { classifyOpenAi } from './detection.js';
import { answerOpenAiMiss } from './replay-miss.js';
import { openAiRouteTemplate } from './routes.js';
import { OPENAI_SCHEMAS } from './schemas.js';

/**
 * Its fields that are not plain data. The tool call ids an answer minted and the next request echoes
 * back are ignored when matching (the issue asks it of a model's replay: a recording made against
 * the live model matches a run whose earlier answer had other ids) and labelled by diff; the fields a
 * client sets per user, session or cache change between runs without the agent deciding otherwise.
 */
const FIELDS: FieldRoles = {
  '/messages/*/tool_calls/*/id': 'client-id',
  '/messages/*/tool_call_id': 'client-id',
  '/input/*/call_id': 'client-id',
  '/input/*/id': 'client-id',
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
  fields: FIELDS,
  answers: true,
  streamEndRules: [RULES.finishReasonMissing, RULES.roleMissing, RULES.usageMissing, RULES.doneMissing, RULES.terminalMissing],
  replay: {
    missAnswers: { http: answerOpenAiMiss, summary: "OpenAI API calls get a 404 in OpenAI's error shape" },
    routeTemplate: openAiRouteTemplate,
  },
};
