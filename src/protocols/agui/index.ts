import type { CheckerContext, ProtocolChecker, ProtocolModule } from '../protocol.js';
import { AguiChecker } from './agui-checker.js';
import { aguiSemantic } from './semantic.js';
import { aguiViews } from './run-view.js';
import { aguiChannelEvidence, aguiReplayFacts } from './replay-facts.js';
import { isEventType } from './event-types.js';
import { isRunAgentInput } from './shapes.js';
import { isJsonObject } from '../../core/json.js';

/** A lone message: an event whose `type` is an EventType, or a RunAgentInput. */
function sniff(value: unknown): number {
  if (!isJsonObject(value)) return 0;
  if (isEventType(value.type)) return 0.9;
  if (isRunAgentInput(value)) return 0.9;
  return 0;
}

function messageEvidence(value: unknown): string {
  if (isJsonObject(value) && isEventType(value.type)) return `AG-UI event ${value.type}`;
  return 'RunAgentInput';
}

function guessSender(value: unknown): 'client' | 'server' {
  return isRunAgentInput(value) && !isEventType((value as { type?: unknown }).type) ? 'client' : 'server';
}

export const aguiProtocol: ProtocolModule<'agui'> = {
  ...aguiReplayFacts,
  title: 'AG-UI (HTTP + SSE / protobuf event stream)',
  sniff,
  channelEvidence: aguiChannelEvidence,
  messageEvidence,
  guessSender,
  semantic: aguiSemantic,
  views: aguiViews,
  createChecker(context: CheckerContext): ProtocolChecker {
    return new AguiChecker(context);
  },
};

export { AGUI_PROTO_MEDIA_TYPE } from './replay-facts.js';
export { AguiChecker } from './agui-checker.js';
export { EVENT_TYPES, isEventType, type EventType } from './event-types.js';
export { RULES, type AguiRuleId } from './rules.js';
