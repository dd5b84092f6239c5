/**
 * Where two exchanges that differ start to differ, to the nearest few thousand messages, known from
 * the first pass alone: a long stream that differs usually differs near its end (an answer a token
 * longer, one more frame), and reading its equal start again only to align it as equal costs as
 * much as the first pass did.
 *
 * The first pass (scanSide) takes, every PREFIX_STEP messages of an exchange, the digest of its
 * hash so far (the exchange's loose key, then each message's comparing text). Two exchanges paired
 * as changed have the same loose key, so equal digests at the same count mean their first `count`
 * messages compare equal one by one. Alignment matches an equal start as equal before anything
 * else (align.ts: lcs takes the common head first), so loading each side from message `count - 1`
 * gives the same report: the skipped messages are all equal, and the one kept is the context
 * (`before`) the first change would have named. Only for one sequence per exchange: not under
 * `--semantic`, where streams are hashed on their own and folded.
 */

/** Every this many messages of an exchange, the first pass keeps a PrefixCheckpoint. */
export const PREFIX_STEP = 1024;

/** An exchange's hash after its first `count` messages. */
export interface PrefixCheckpoint {
  /** Messages hashed so far (a multiple of PREFIX_STEP). */
  count: number;
  /** The digest of the exchange's hash after them. */
  digest: string;
  /** The id canonicalizer's size before the last of them (IdCanonicalizer.restore): where loading resumes. */
  idsBefore: number;
}

/** Where one side of a changed pair is loaded from: `skip` messages left out, ids restored to `idsBefore`. */
export interface LoadFrom {
  skip: number;
  idsBefore: number;
}

/** Where each side of a pair that differs can start loading, when both start with the same PREFIX_STEP messages or more. */
export function commonStart(a: readonly PrefixCheckpoint[] | undefined, b: readonly PrefixCheckpoint[] | undefined): { a: LoadFrom; b: LoadFrom } | undefined {
  if (a === undefined || b === undefined) return undefined;
  let last = -1;
  for (let i = 0; i < a.length && i < b.length; i++) {
    if (a[i].count !== b[i].count || a[i].digest !== b[i].digest) break;
    last = i;
  }
  if (last < 0) return undefined;
  const skip = a[last].count - 1;
  return { a: { skip, idsBefore: a[last].idsBefore }, b: { skip, idsBefore: b[last].idsBefore } };
}
