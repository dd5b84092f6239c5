import type { FieldMatcher, IdCanonicalizer } from './id-canonicalizer.js';

/** Texts longer than this are not remembered (a long text rarely repeats, and would hold memory). */
const MAX_TEXT_LENGTH = 4096;
/** At most this many texts are remembered (and as many seen once); then that memory starts over. */
const MAX_ENTRIES = 4096;

/** A JSON text made canonical before: its parsed value and its canonical text. */
export interface KnownText {
  /** The JSON text as it was remembered: one string for all messages of that text, to hold instead of each one's copy. */
  readonly json: string;
  readonly value: unknown;
  readonly canon: string;
}

interface Entry extends KnownText {
  readonly matcher: FieldMatcher;
  /** The canonicalizer's size (ids learnt) when it was made: the text is the same while it has not moved. */
  readonly size: number;
}

/**
 * The canonical texts (IdCanonicalizer.canonicalText) of the JSON texts a side repeats, so that a
 * message whose text came before is neither parsed nor walked again: a stream repeats itself a lot
 * (a chunk of the same token, a heartbeat, a status frame). A canonical text depends on the ids
 * learnt so far, so one is only reused while the canonicalizer has learnt nothing since, and only
 * if making it learnt nothing: then walking the value again would learn nothing and give the same
 * text (labels of ids known are fixed; the order watch only hears again of strings it has heard).
 * A value handed back is shared by every message of that text, so it must not be changed.
 *
 * The canonicalizer must only move forward while this is used (not IdCanonicalizer.restore).
 */
export class CanonicalTexts {
  private readonly known = new Map<string, Entry>();
  /**
   * Texts seen once: a text is remembered when it comes again. Most texts of some streams never repeat
   * (a frame numbered in order), and keeping each one's value would cost the heap more than it saves,
   * and would push out the texts that do repeat.
   */
  private readonly seen = new Set<string>();

  constructor(private readonly ids: IdCanonicalizer) {}

  /** The value and canonical text of `json` under `matcher`, if it was made before in the state the canonicalizer is in. */
  get(json: string, matcher: FieldMatcher): KnownText | undefined {
    if (json.length > MAX_TEXT_LENGTH) return undefined;
    const entry = this.known.get(json);
    return entry !== undefined && entry.size === this.ids.size && entry.matcher === matcher ? entry : undefined;
  }

  /** The canonical text of `value`, parsed from `json`, remembered when making it learnt no id. */
  make(json: string, value: unknown, matcher: FieldMatcher): string {
    const size = this.ids.size;
    const canon = this.ids.canonicalText(value, matcher);
    if (this.ids.size === size && json.length <= MAX_TEXT_LENGTH) {
      if (this.known.has(json) || this.seen.delete(json)) {
        if (this.known.size >= MAX_ENTRIES) this.known.clear();
        // Flat: a text built piece by piece is a tree of its pieces on the heap until a read flattens it.
        canon.charCodeAt(0);
        this.known.set(json, { json, value, canon, matcher, size });
      } else {
        if (this.seen.size >= MAX_ENTRIES) this.seen.clear();
        this.seen.add(json);
      }
    }
    return canon;
  }
}
