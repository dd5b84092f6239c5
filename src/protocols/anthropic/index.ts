import type { CheckerContext, ProtocolChecker, ProtocolModule } from '../protocol.js';
import { AnthropicChecker } from './checker.js';
import { anthropicViews } from './message-answer.js';
import { anthropicReplayFacts } from './replay-facts.js';
import { anthropicSemantic } from './semantic.js';
import { guessAnthropicSender } from './shapes.js';

/** Anthropic's Messages API over HTTP and SSE: `POST /v1/messages` plain and streamed, and count_tokens. */
export const anthropicProtocol: ProtocolModule<'anthropic'> = {
  ...anthropicReplayFacts,
  title: 'Anthropic Messages API',
  guessSender: guessAnthropicSender,
  semantic: anthropicSemantic,
  createChecker(context: CheckerContext): ProtocolChecker {
    return new AnthropicChecker(context);
  },
  views: anthropicViews,
};

export { ANTHROPIC_RULES, type AnthropicRuleId } from './rules.js';
