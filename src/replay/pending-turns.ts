import type { PeerRequestRole } from '../protocols/protocol.js';
import type { ScriptMessage } from './replay-script.js';

/** A recorded client message a turn-by-turn replay waits for, and the server messages that followed it. */
export interface RecordedTurn {
  client: ScriptMessage;
  replies: ScriptMessage[];
}

/** How a live message compares with a recorded client message: `[]` when it matches, else where it differs. */
export type TurnDiffer = (recorded: ScriptMessage) => string[];

/** The outcome of offering a live message: the turn it is, or the one it was compared with and how it differs. */
export type TurnMatch<T extends RecordedTurn> = { turn: T } | { expected: T | undefined; differences: string[] };

/**
 * The recorded client messages of a conversation a replay still waits for, and which of them a live
 * message may be. A client's own messages (requests, notifications, commands) come in the order it
 * wrote them, so the next one is the first not yet taken. Its answer to a request the replay sent
 * (MCP's `roots/list`, ACP's permission request, a Pi extension dialog) is not ordered with them: the
 * client may answer before or after its own next message, and the protocol allows both. So an answer
 * is taken whenever it comes once its request was written, and the server messages recorded after it
 * are played then; the client's own messages keep their strict order. Without the protocol's
 * `peerRequest` every message is the client's own: the recorded order, strictly.
 */
export class PendingTurns<T extends RecordedTurn> {
  /** The id of the request each turn's client message answers; undefined for the client's own messages. */
  private readonly answers: Array<string | undefined>;
  private readonly taken: boolean[];
  /** The turns answering each request id, in recorded order. */
  private readonly answersById = new Map<string, number[]>();
  /** Requests written to the client whose recorded answer was not taken yet, by id, with how many are open. */
  private readonly asked = new Map<string, number>();
  /** The first turn not taken, and the first of the client's own messages not taken (turns.length when none). */
  private first = 0;
  private nextOwn = 0;
  private remaining: number;

  constructor(
    private readonly turns: readonly T[],
    private readonly peerRequest: ((message: unknown) => PeerRequestRole | undefined) | undefined,
  ) {
    this.answers = turns.map((turn) => this.roleOf(turn.client.json, 'answer'));
    this.answers.forEach((id, i) => {
      if (id === undefined) return;
      const list = this.answersById.get(id);
      if (list) list.push(i);
      else this.answersById.set(id, [i]);
    });
    this.taken = turns.map(() => false);
    this.remaining = turns.length;
    this.advance();
  }

  /** True once every turn was taken. */
  get done(): boolean {
    return this.remaining === 0;
  }

  /** The turns never taken, in recorded order. */
  untaken(): T[] {
    return this.turns.filter((_turn, i) => !this.taken[i]);
  }

  /** Notes a recorded server message the replay wrote: a request it makes can be answered from now on. */
  written(message: ScriptMessage): void {
    if (!this.peerRequest || message.json === undefined) return;
    const id = this.roleOf(message.json, 'request');
    // A request the recording holds no answer to is not waited for.
    if (id !== undefined && this.answersById.has(id)) this.asked.set(id, (this.asked.get(id) ?? 0) + 1);
  }

  /**
   * The turn a live message is: the first candidate it matches, in recorded order (an answer to the
   * request of its own id first). The candidates are the client's next own message and the answers
   * to requests already written; the first turn not taken is always one, whatever it is.
   * `live()` gives the live message's parsed value, asked for only when there is a choice.
   * The taken turn's answer, if it is one, closes its request.
   */
  match(live: () => unknown, differ: TurnDiffer): TurnMatch<T> {
    const candidates = this.candidates();
    const answering = candidates.length > 1 ? this.roleOf(live(), 'answer') : undefined;
    if (answering !== undefined) candidates.sort((a, b) => Number(this.answers[b] === answering) - Number(this.answers[a] === answering));
    const compared: Array<{ index: number; differences: string[] }> = [];
    for (const index of candidates) {
      const differences = differ(this.turns[index].client);
      if (differences.length === 0) {
        this.take(index);
        return { turn: this.turns[index] };
      }
      compared.push({ index, differences });
    }
    // A miss is reported against a turn of its kind: an answer against an answer, else the next own message.
    const nearest = compared.find(({ index }) => (this.answers[index] !== undefined) === (answering !== undefined)) ?? compared[0];
    return nearest ? { expected: this.turns[nearest.index], differences: nearest.differences } : { expected: undefined, differences: ['line'] };
  }

  /** Takes `turn` without a live message: the recorded one the live client did not send (a WebSocket ping). */
  pass(turn: T): void {
    const i = this.turns.indexOf(turn, this.first);
    if (i >= 0 && !this.taken[i]) this.take(i);
  }

  /** The first turn not taken: what a live message that cannot be compared is reported against. */
  next(): T | undefined {
    return this.turns[this.first];
  }

  /** Indexes of the turns a live message may be, in recorded order. */
  private candidates(): number[] {
    const found = new Set<number>();
    if (this.first < this.turns.length) found.add(this.first);
    if (this.nextOwn < this.turns.length) found.add(this.nextOwn);
    for (const [id, open] of this.asked) {
      if (open > 0) for (const i of this.answersById.get(id) ?? []) if (!this.taken[i]) found.add(i);
    }
    return [...found].sort((a, b) => a - b);
  }

  private take(i: number): void {
    this.taken[i] = true;
    this.remaining--;
    const answers = this.answers[i];
    const open = answers === undefined ? 0 : (this.asked.get(answers) ?? 0);
    if (open > 1) this.asked.set(answers!, open - 1);
    else if (answers !== undefined) this.asked.delete(answers);
    this.advance();
  }

  /** Moves the cursors past taken turns (and `nextOwn` past answers). */
  private advance(): void {
    while (this.first < this.turns.length && this.taken[this.first]) this.first++;
    if (this.nextOwn < this.first) this.nextOwn = this.first;
    while (this.nextOwn < this.turns.length && (this.taken[this.nextOwn] || this.answers[this.nextOwn] !== undefined)) this.nextOwn++;
  }

  private roleOf(message: unknown, role: PeerRequestRole['role']): string | undefined {
    if (message === undefined || !this.peerRequest) return undefined;
    const found = this.peerRequest(message);
    return found?.role === role ? found.id : undefined;
  }
}
