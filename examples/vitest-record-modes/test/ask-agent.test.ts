import { expect, inject, it } from 'vitest';
import { askAgent } from './ask-agent.js';

it('shows the answer the agent streams', async () => {
  expect(await askAgent(inject('agentUrl'), 'What is the weather in Paris?')).toBe('It is sunny in Paris.');
});
