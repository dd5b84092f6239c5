/** One learnt id, in order of first appearance: the value (a string and a number are different ids) and its label. */
export type IdLogEntry = readonly [value: string | number, label: string];

/** Strings longer than this are not remembered one by one: learning one as an id always asks for the second pass. */
const MAX_REMEMBERED_LENGTH = 1024;
/** 2^23 bits (1 MiB): few false alarms for millions of distinct strings. */
const FILTER_BITS = 1 << 23;

/**
 * Watches the first pass over a side for what makes id labels depend on order: a string left as
 * it is in a plain field, then learnt as an id later (a Pi entry's `id` before the `parentId` that
 * names it). Remembers the plain strings in a Bloom filter, so memory stays fixed; a false alarm
 * only costs the second pass.
 */
export class OrderWatch {
  private readonly bits = new Uint8Array(FILTER_BITS >>> 3);
  /** Did an id turn up that may have been seen before as a plain string? */
  alarmed = false;

  /** A string left unlabelled in a plain field, header, path or query. */
  sawPlain(value: string): void {
    if (value.length > MAX_REMEMBERED_LENGTH) return;
    hash(value);
    this.bits[h1 >>> 3] |= 1 << (h1 & 7);
    this.bits[h2 >>> 3] |= 1 << (h2 & 7);
  }

  /** A string just learnt as an id. */
  learnt(value: string): void {
    if (this.alarmed) return;
    if (value.length > MAX_REMEMBERED_LENGTH) {
      this.alarmed = true;
      return;
    }
    hash(value);
    if (this.bits[h1 >>> 3] & (1 << (h1 & 7)) && this.bits[h2 >>> 3] & (1 << (h2 & 7))) this.alarmed = true;
  }
}

/**
 * The ids of a whole recording by role, from the first pass's log: every string learnt as an id
 * (under an id key, as a volatile token or an id-like path segment), with the name it was learnt
 * under. The second pass labels each wherever it appears first.
 */
export function idRolesOf(log: readonly IdLogEntry[]): Map<string, string> {
  const roles = new Map<string, string>();
  for (const [value, label] of log) if (typeof value === 'string') roles.set(value, label.slice(0, label.lastIndexOf('#')));
  return roles;
}

// The two bit positions of the last string hashed (module state, so hashing allocates nothing).
let h1 = 0;
let h2 = 0;

/** Two 23-bit positions, from FNV-1a and a second multiplier. */
function hash(value: string): void {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  h1 = (a >>> 0) & (FILTER_BITS - 1);
  h2 = ((b ^ (b >>> 15)) >>> 0) & (FILTER_BITS - 1);
}
