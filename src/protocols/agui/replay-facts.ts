import type { ChannelHint, ProtocolFacts } from '../protocol.js';
import { answerAguiMiss } from './replay-miss.js';
import { aguiFaultAnswers } from './fault-answers.js';
import { isRunAgentInput } from './shapes.js';
import { AGUI_SCHEMAS } from './schemas.js';
import { AGUI_PROTO_MEDIA_TYPE } from './media-type.js';
import { aguiProtoBinding } from './proto-binding.js';
import { RULES } from './rules.js';
import { aguiMessageEvidence, sniffAgui } from './sniff.js';

export { AGUI_PROTO_MEDIA_TYPE } from './media-type.js';

function mediaType(contentType: string): string {
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/**
 * How sure we are that a channel is an AG-UI run, from evidence that is AG-UI's own: a request body
 * that is a RunAgentInput, or the protobuf binding's media type. An event stream alone is anybody's
 * (MCP, OpenAI, Anthropic stream SSE too): its events decide (their `type`s, sniff). Pi daemon routes
 * live under `/v1/` and are never AG-UI.
 */
function classify(hint: ChannelHint): number {
  if (hint.path !== undefined && (hint.path === '/v1' || hint.path.startsWith('/v1/'))) return 0;
  if (hint.method !== undefined && hint.method.toUpperCase() !== 'POST') return 0;
  const isHttp = hint.transport === 'http' || hint.transport === 'sse' || hint.transport === 'proto';
  if (!isHttp) return 0;
  if (isRunAgentInput(hint.requestBody)) return 0.95;
  // Length-prefixed protobuf frames are AG-UI's binding.
  if (hint.transport === 'proto') return 0.9;
  if (hint.contentType === undefined) return 0;
  if (hint.contentType === AGUI_PROTO_MEDIA_TYPE) return 0.9;
  // A parameter on the proto type makes the client hand the body to its SSE parser (§1.4): ours, but broken.
  if (mediaType(hint.contentType) === AGUI_PROTO_MEDIA_TYPE) return 0.3;
  return 0;
}

/** What made classify claim a channel, for `show`. */
export function aguiChannelEvidence(hint: ChannelHint): string {
  if (isRunAgentInput(hint.requestBody)) return 'RunAgentInput body';
  return `content type ${hint.contentType ?? AGUI_PROTO_MEDIA_TYPE}`;
}

/** Which channels are AG-UI runs, and how a replay matches and answers them. */
export const aguiReplayFacts: ProtocolFacts<'agui', 'http' | 'sse' | 'proto' | 'file'> = {
  id: 'agui',
  transports: ['http', 'sse', 'proto', 'file'],
  streamEndRules: [RULES.D6],
  schemas: AGUI_SCHEMAS,
  binding: aguiProtoBinding,
  classify,
  channelEvidence: aguiChannelEvidence,
  sniff: sniffAgui,
  messageEvidence: aguiMessageEvidence,
  fields: {
    // Clients mint threadId/runId per run; RUN_STARTED/RUN_FINISHED must echo them (notes §2).
    threadId: { echoedFrom: ['/threadId'] },
    runId: { echoedFrom: ['/runId'] },
    // Fresh on every run wherever a request carries them (the server mints its own in its events).
    parentRunId: 'client-id',
    messageId: 'client-id',
    timestamp: 'volatile',
    // They also mint an id for each message they add to their RunAgentInput (a fresh one per run)
    // and for the tool calls they make themselves, and name the tool call a tool message answers;
    // a MESSAGES_SNAPSHOT, a TOOL_CALL_RESULT or a parentMessageId echoes those.
    '/messages/*/id': 'echoed-client-id',
    '/messages/*/toolCalls/*/id': 'echoed-client-id',
    '/messages/*/toolCallId': 'echoed-client-id',
  },
  replay: {
    missAnswers: { http: answerAguiMiss, summary: 'AG-UI runs get a 200 RUN_ERROR event stream' },
    faultAnswers: aguiFaultAnswers,
  },
};
