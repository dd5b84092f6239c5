/** Texts longer than this are not remembered (a long text rarely repeats, and would hold memory). */
const MAX_TEXT_LENGTH = 4096;
/** At most this many texts are remembered (and as many seen once); then that memory starts over. */
const MAX_ENTRIES = 4096;

/**
 * What was made of the texts a stream repeats (a chunk of the same token, a heartbeat, a status
 * frame), remembered from a text's second coming on: most texts of some streams never repeat (a frame
 * numbered in order), and keeping each one's entry would cost the heap more than it saves and push out
 * the texts that do repeat. Bounded in the number and length of texts. `validate`'s parsed values
 * (RepeatedJson) and `diff`'s canonical texts (CanonicalTexts) keep theirs here.
 */
export class RepeatedTexts<V> {
  private readonly known = new Map<string, V>();
  private readonly seen = new Set<string>();

  /** The entry remembered for `text`, if any. */
  get(text: string): V | undefined {
    return text.length > MAX_TEXT_LENGTH ? undefined : this.known.get(text);
  }

  /**
   * Offers what was made of `text`: remembered (replacing an earlier entry) when the text came before,
   * else the text is noted as seen once. `entry` is called only when it is remembered. Returns the
   * entry remembered, or undefined.
   */
  offer(text: string, entry: () => V): V | undefined {
    if (text.length > MAX_TEXT_LENGTH) return undefined;
    if (this.known.has(text) || this.seen.delete(text)) {
      if (this.known.size >= MAX_ENTRIES) this.known.clear();
      const made = entry();
      this.known.set(text, made);
      return made;
    }
    if (this.seen.size >= MAX_ENTRIES) this.seen.clear();
    this.seen.add(text);
    return undefined;
  }
}
