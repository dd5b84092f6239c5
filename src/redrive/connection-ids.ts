import type { Substitution } from '../match/correlation.js';
import { answerValues } from './answer-values.js';
import { learnMintedIds } from './minted-ids.js';

/**
 * The ids a server mints within one connection (a session opened on a WebSocket, an ACP session
 * made over stdio), learnt as its answers come: each live answer is compared with the recorded one
 * at the same place, so a client message sent after the answer that minted an id carries the new
 * value, not only the connections that follow.
 */
export class ConnectionIds {
  private compared = 0;

  /**
   * `recorded`: the recorded answers of the connection in order, each its JSON value (undefined for
   * one that was not JSON); `ids`: the redrive's substitution, which the pairs are added to.
   */
  constructor(
    private readonly recorded: readonly unknown[],
    readonly ids: Substitution,
  ) {}

  /** Learns from the live answers (their text, in order) that came since the last call. */
  learn(live: readonly string[]): void {
    const until = Math.min(live.length, this.recorded.length);
    for (; this.compared < until; this.compared++) {
      const recorded = this.recorded[this.compared];
      if (recorded === undefined) continue;
      const [value] = answerValues(Buffer.from(live[this.compared], 'utf8'), {});
      if (value !== undefined) this.ids.add(learnMintedIds([recorded], [value]));
    }
  }
}
