import { RepeatedTexts } from '../core/repeated-texts.js';
import type { FieldMatcher, IdCanonicalizer } from './id-canonicalizer.js';

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
  private readonly texts = new RepeatedTexts<Entry>();

  constructor(private readonly ids: IdCanonicalizer) {}

  /** The value and canonical text of `json` under `matcher`, if it was made before in the state the canonicalizer is in. */
  get(json: string, matcher: FieldMatcher): KnownText | undefined {
    const entry = this.texts.get(json);
    return entry !== undefined && entry.size === this.ids.size && entry.matcher === matcher ? entry : undefined;
  }

  /** The canonical text of `value`, parsed from `json`, remembered when making it learnt no id. */
  make(json: string, value: unknown, matcher: FieldMatcher): string {
    const size = this.ids.size;
    const canon = this.ids.canonicalText(value, matcher);
    if (this.ids.size === size) {
      this.texts.offer(json, () => {
        // Flat: a text built piece by piece is a tree of its pieces on the heap until a read flattens it.
        canon.charCodeAt(0);
        return { json, value, canon, matcher, size };
      });
    }
    return canon;
  }
}
