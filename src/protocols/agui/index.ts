import type { CheckerContext, ProtocolChecker, ProtocolModule } from '../protocol.js';
import { AguiChecker } from './agui-checker.js';
import { aguiSemantic } from './semantic.js';
import { aguiViews } from './run-view.js';
import { aguiReplayFacts } from './replay-facts.js';
import { isEventType } from './event-types.js';
import { isRunAgentInput } from './shapes.js';

function guessSender(value: unknown): 'client' | 'server' {
  return isRunAgentInput(value) && !isEventType((value as { type?: unknown }).type) ? 'client' : 'server';
}

export const aguiProtocol: ProtocolModule<'agui'> = {
  ...aguiReplayFacts,
  title: 'AG-UI (HTTP + SSE / protobuf event stream)',
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
