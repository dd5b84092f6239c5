import type { CheckerContext, ProtocolChecker, ProtocolModule } from '../protocol.js';
import { OpenAiChecker } from './checker.js';
import { openAiViews } from './answer-view.js';
import { openAiReplayFacts } from './replay-facts.js';
import { openAiSemantic } from './semantic.js';
import { guessOpenAiSender } from './shapes.js';

/**
 * The OpenAI API as OpenAI and every compatible server (vLLM, Ollama, LiteLLM, OpenRouter) speak it
 * over HTTP and SSE: chat completions, Responses, embeddings and the model list.
 */
export const openAiProtocol: ProtocolModule<'openai'> = {
  ...openAiReplayFacts,
  title: 'OpenAI API',
  guessSender: guessOpenAiSender,
  semantic: openAiSemantic,
  createChecker(context: CheckerContext): ProtocolChecker {
    return new OpenAiChecker(context);
  },
  views: openAiViews,
};

export { OPENAI_RULES, type OpenAiRuleId } from './rules.js';
