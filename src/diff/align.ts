/** One step of an alignment of two sequences: indices into A and/or B. */
export type AlignOp =
  | { kind: 'equal'; a: number; b: number }
  | { kind: 'changed'; a: number; b: number }
  | { kind: 'removed'; a: number }
  | { kind: 'added'; b: number };

/** Above this many DP cells a gap is matched greedily instead of by an exact LCS (memory stays bounded). */
const MAX_DP_CELLS = 4_000_000;

/**
 * Aligns two sequences in two passes: an LCS over the exact keys (items equal after normalization)
 * anchors what did not change; inside each gap between anchors, an LCS over the loose keys
 * (transport/method/path template, message type …) pairs items that changed, and what is left over
 * was removed from A or added in B. An inserted item therefore never shifts the rest.
 */
export function align(aExact: readonly string[], bExact: readonly string[], aLoose: readonly string[], bLoose: readonly string[]): AlignOp[] {
  const ops: AlignOp[] = [];
  let ai = 0;
  let bi = 0;
  const anchors = lcs(aExact, bExact, 0, aExact.length, 0, bExact.length);
  for (const [i, j] of [...anchors, [aExact.length, bExact.length] as [number, number]]) {
    // The gap [ai, i) × [bi, j): pair by loose key.
    let gi = ai;
    let gj = bi;
    for (const [pi, pj] of lcs(aLoose, bLoose, ai, i, bi, j)) {
      while (gi < pi) ops.push({ kind: 'removed', a: gi++ });
      while (gj < pj) ops.push({ kind: 'added', b: gj++ });
      ops.push({ kind: aExact[pi] === bExact[pj] ? 'equal' : 'changed', a: pi, b: pj });
      gi = pi + 1;
      gj = pj + 1;
    }
    while (gi < i) ops.push({ kind: 'removed', a: gi++ });
    while (gj < j) ops.push({ kind: 'added', b: gj++ });
    if (i < aExact.length) ops.push({ kind: 'equal', a: i, b: j });
    ai = i + 1;
    bi = j + 1;
  }
  return ops;
}

/** Index pairs of a longest common subsequence of a[a0,a1) and b[b0,b1). */
export function lcs(a: readonly string[], b: readonly string[], a0: number, a1: number, b0: number, b1: number): Array<[number, number]> {
  const head: Array<[number, number]> = [];
  while (a0 < a1 && b0 < b1 && a[a0] === b[b0]) head.push([a0++, b0++]);
  const tail: Array<[number, number]> = [];
  while (a0 < a1 && b0 < b1 && a[a1 - 1] === b[b1 - 1]) tail.push([--a1, --b1]);
  tail.reverse();
  const n = a1 - a0;
  const m = b1 - b0;
  let middle: Array<[number, number]> = [];
  if (n > 0 && m > 0) middle = (n + 1) * (m + 1) <= MAX_DP_CELLS ? dp(a, b, a0, n, b0, m) : greedy(a, b, a0, a1, b0, b1);
  return [...head, ...middle, ...tail];
}

function dp(a: readonly string[], b: readonly string[], a0: number, n: number, b0: number, m: number): Array<[number, number]> {
  const w = m + 1;
  const table = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * w + j] = a[a0 + i] === b[b0 + j] ? table[(i + 1) * w + j + 1] + 1 : Math.max(table[(i + 1) * w + j], table[i * w + j + 1]);
    }
  }
  const out: Array<[number, number]> = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[a0 + i] === b[b0 + j]) {
      out.push([a0 + i, b0 + j]);
      i++;
      j++;
    } else if (table[(i + 1) * w + j] >= table[i * w + j + 1]) i++;
    else j++;
  }
  return out;
}

/** For very long gaps: match each item of A with the next equal item of B, in order. */
function greedy(a: readonly string[], b: readonly string[], a0: number, a1: number, b0: number, b1: number): Array<[number, number]> {
  const positions = new Map<string, number[]>();
  for (let j = b1 - 1; j >= b0; j--) {
    let list = positions.get(b[j]);
    if (!list) positions.set(b[j], (list = []));
    list.push(j);
  }
  const out: Array<[number, number]> = [];
  let last = b0 - 1;
  for (let i = a0; i < a1; i++) {
    const list = positions.get(a[i]);
    if (!list) continue;
    while (list.length > 0 && list[list.length - 1] <= last) list.pop();
    if (list.length === 0) continue;
    last = list.pop()!;
    out.push([i, last]);
  }
  return out;
}
