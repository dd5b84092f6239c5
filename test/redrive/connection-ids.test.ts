/** ConnectionIds: ids learnt from each answer as it comes, against the recorded answer at its place. */
import { describe, expect, it } from 'vitest';
import { ConnectionIds } from '../../src/redrive/connection-ids.js';
import { Substitution } from '../../src/match/correlation.js';

describe('ConnectionIds', () => {
  it('learns from the answers that came since the last call, each against the recorded one at its place, a non-JSON one skipped', () => {
    const minted = new ConnectionIds([{ sessionId: 'session-old' }, undefined, { ticketId: 'ticket-old' }], new Substitution());
    const live = [JSON.stringify({ sessionId: 'session-new' })];
    minted.learn(live);
    expect(minted.ids.apply(Buffer.from('{"sessionId":"session-old","ticketId":"ticket-old"}')).toString()).toBe('{"sessionId":"session-new","ticketId":"ticket-old"}');
    live.push('not json', JSON.stringify({ ticketId: 'ticket-new' }), JSON.stringify({ extra: 'answer-beyond-the-recording' }));
    minted.learn(live);
    expect(minted.ids.list().map((p) => [p.recorded, p.live])).toEqual([
      ['session-old', 'session-new'],
      ['ticket-old', 'ticket-new'],
    ]);
  });
});
