import { REPLAY_FACTS } from '../protocols/catalog.js';
import type { ReplayScript } from './replay-script.js';

/**
 * What a request that matches nothing gets, for the protocols a recording holds, in one phrase for
 * replay's start line: each protocol's own answer as its module describes it (miss-answer.ts), then the
 * replay's generic one: `AG-UI runs get a 200 RUN_ERROR event stream, anything else gets 404`. Only the
 * exchanges replay serves over HTTP and WebSocket count; stdio and NDJSON socket ones have replays of their own.
 */
export function missAnswersSummary(script: ReplayScript): string {
  const served = script.exchanges.filter((e) => e.transport !== 'stdio' && e.transport !== 'ndjson');
  const present = new Set(served.map((e) => e.protocol));
  const phrases: string[] = [];
  for (const facts of REPLAY_FACTS) {
    const summary = facts.replay?.missAnswers?.summary;
    if (present.has(facts.id) && summary !== undefined) phrases.push(summary);
  }
  phrases.push(phrases.length === 0 ? 'every request gets 404' : 'anything else gets 404');
  if (served.some((e) => e.transport === 'ws')) phrases.push('a WebSocket frame nothing answers closes its connection (1008)');
  return phrases.join(', ');
}
