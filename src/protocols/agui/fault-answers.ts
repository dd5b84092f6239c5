import type { FaultAnswers } from '../fault-answers.js';

/**
 * A run failing mid-stream on purpose (`--fault error=500,after=3`), as an agent reports a failed
 * run: a `RUN_ERROR` event (`code: "fault_injected"`, the sentence naming the spec as `message`),
 * which the official client hands to the app's `onRunErrorEvent`.
 */
export const aguiFaultAnswers: FaultAnswers = {
  streamError: (fault) => `data: ${JSON.stringify({ type: 'RUN_ERROR', message: fault.message, code: 'fault_injected' })}\n\n`,
};
