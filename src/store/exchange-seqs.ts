/** What a writer knows of an exchange it began: the seq its next message gets, and its last message's id. */
export interface ExchangeSeq {
  next: number;
  last: number | undefined;
}

/** An exchange's entry once it has ended: its state is in the file (see ExchangeSeqs). */
const ENDED = 0;
/** Ended entries at the front of the arrays that make them worth dropping; amortised over as many ends. */
const TRIM_AFTER_ENDED = 1024;

/**
 * The next seq and the last message of every exchange a writer began, by id. Ids are handed out in
 * order, so plain arrays indexed from `base` hold them: no Map entry per exchange for the collector to
 * trace. An ended exchange's entry is marked ENDED, and once the arrays hold TRIM_AFTER_ENDED of them
 * and they are at least half of the arrays, the arrays start again at the next id: the exchanges still
 * going move into a Map of their own (a few: those a long stream or a slow answer keeps open). So a
 * long recording holds what its open exchanges need, not ~16 bytes for every exchange it ever had.
 *
 * An ended exchange stays an exchange of the writer's: it may still be updated, ended again or given
 * messages. What its next seq and last message are is then read back from the file (`stored`: the
 * writer flushes its queue first), which only such a late call pays for.
 */
export class ExchangeSeqs {
  /** The writer's first exchange id: earlier ones belong to the file. */
  readonly firstId: number;
  /** One past the last id begun. */
  private nextId: number;
  /** The id of the arrays' first entry. */
  private base: number;
  private seqs: number[] = [];
  private lastMessages: number[] = [];
  /** ENDED entries in the arrays. */
  private ended = 0;
  /** Exchanges still going whose ids are below `base`, or that were given a message after they ended. */
  private readonly older = new Map<number, ExchangeSeq>();

  constructor(
    firstId: number,
    private readonly stored: (id: number) => ExchangeSeq,
  ) {
    this.firstId = this.nextId = this.base = firstId;
  }

  begin(id: number): void {
    this.nextId = id + 1;
    this.seqs[id - this.base] = 1;
  }

  /** Whether the writer began exchange `id` (ended or not). */
  has(id: number): boolean {
    return Number.isInteger(id) && id >= this.firstId && id < this.nextId;
  }

  /** The seq exchange `id`'s next message gets; undefined if the writer did not begin it. */
  get(id: number): number | undefined {
    if (id >= this.base && id < this.nextId) {
      const next = this.seqs[id - this.base];
      if (next !== ENDED) return next;
    }
    return this.has(id) ? this.olderOf(id).next : undefined;
  }

  /** Exchange `id` (begun by the writer) got message `messageId`, with seq `seq - 1`. */
  set(id: number, seq: number, messageId: number): void {
    if (id >= this.base && this.seqs[id - this.base] !== ENDED) {
      this.seqs[id - this.base] = seq;
      this.lastMessages[id - this.base] = messageId;
      return;
    }
    const older = this.olderOf(id);
    older.next = seq;
    older.last = messageId;
  }

  /** The id of the last message added to exchange `id` by this writer, if any. */
  lastMessage(id: number): number | undefined {
    if (id >= this.base && id < this.nextId) {
      if (this.seqs[id - this.base] !== ENDED) return this.lastMessages[id - this.base];
    }
    return this.has(id) ? this.olderOf(id).last : undefined;
  }

  /** Exchange `id` has ended: what it holds here may go (it is read back from the file if it is needed again). */
  end(id: number): void {
    if (this.older.delete(id)) return;
    if (id < this.base || this.seqs[id - this.base] === ENDED) return;
    this.seqs[id - this.base] = ENDED;
    this.ended++;
    if (this.ended >= TRIM_AFTER_ENDED && this.ended * 2 >= this.seqs.length) this.trim();
  }

  /** @internal exchanges this holds an entry for (ended or not), for tests. */
  get size(): number {
    return this.seqs.length + this.older.size;
  }

  /** The arrays start again at the next id; the exchanges in them still going move into `older`. */
  private trim(): void {
    for (let i = 0; i < this.seqs.length; i++) {
      const next = this.seqs[i];
      if (next !== ENDED && next !== undefined) this.older.set(this.base + i, { next, last: this.lastMessages[i] });
    }
    this.base = this.nextId;
    this.seqs = [];
    this.lastMessages = [];
    this.ended = 0;
  }

  /** An exchange's entry outside the arrays: still going, or ended (then read back from the file and kept while it is used again). */
  private olderOf(id: number): ExchangeSeq {
    let older = this.older.get(id);
    if (older === undefined) {
      older = this.stored(id);
      this.older.set(id, older);
    }
    return older;
  }
}
