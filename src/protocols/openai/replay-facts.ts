import type { ProtocolFacts } from '../protocol.js';
import { classifyOpenAi } from './detection.js';
import { answerOpenAiMiss } from './replay-miss.js';
import { openAiRouteTemplate } from './routes.js';
import { OPENAI_SCHEMAS } from './schemas.js';

/**
 * What changes between two runs of the same agent without it deciding anything differently: the
 * tool call ids an answer minted and the next request echoes back (chat and Responses), and the
 * fields a client sets per user, session or cache.
 */
const VOLATILE_FIELDS = [
  '/messages/*/tool_calls/*/id',
  '/messages/*/tool_call_id',
  '/input/*/call_id',
  '/input/*/id',
  '/user',
  '/metadata',
  '/prompt_cache_key',
  '/safety_identifier',
];

/** Which channels are OpenAI-compatible API calls, and how a replay matches and answers them. */
export const openAiReplayFacts: ProtocolFacts<'openai', 'http' | 'sse' | 'file'> = {
  id: 'openai',
  transports: ['http', 'sse', 'file'],
  schemas: OPENAI_SCHEMAS,
  classify: classifyOpenAi,
  replay: {
    volatileFields: VOLATILE_FIELDS,
    missAnswers: { http: answerOpenAiMiss, summary: "OpenAI API calls get a 404 in OpenAI's error shape" },
    routeTemplate: openAiRouteTemplate,
  },
};
