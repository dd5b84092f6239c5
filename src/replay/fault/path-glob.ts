/**
 * A fault's `path=` pattern: `*` stands for any run of characters but `/`, `**` for any run at all,
 * everything else for itself. A request path is hostile input, so matching simulates the pattern as a
 * set of positions stepped once per character of the path (time: path length × pattern length), never
 * as a backtracking regular expression, which `/**\/**\/**\/end` against a long path would hang.
 */
export class PathGlob {
  /** One entry per pattern element: a literal character, or a wildcard. */
  private readonly pieces: readonly Piece[];

  constructor(readonly pattern: string) {
    const pieces: Piece[] = [];
    for (let i = 0; i < pattern.length; i++) {
      if (pattern[i] !== '*') pieces.push(pattern[i]);
      else if (pattern[i + 1] === '*') {
        // Any run of stars with two or more in it is one `**`: `***` matches what `**` does.
        while (pattern[i + 1] === '*') i++;
        if (pieces.at(-1) !== ANY) pieces.push(ANY);
      } else if (pieces.at(-1) !== ANY && pieces.at(-1) !== SEGMENT) pieces.push(SEGMENT);
    }
    this.pieces = pieces;
  }

  test(path: string): boolean {
    const pieces = this.pieces;
    let current = new Uint8Array(pieces.length + 1);
    let next = new Uint8Array(pieces.length + 1);
    current[0] = 1;
    this.close(current);
    for (let at = 0; at < path.length; at++) {
      const char = path[at];
      next.fill(0);
      let alive = false;
      for (let i = 0; i < pieces.length; i++) {
        if (!current[i]) continue;
        const piece = pieces[i];
        if (piece === ANY || (piece === SEGMENT && char !== '/')) {
          next[i] = 1;
          alive = true;
        } else if (piece === char) {
          next[i + 1] = 1;
          alive = true;
        }
      }
      if (!alive) return false;
      this.close(next);
      [current, next] = [next, current];
    }
    return current[pieces.length] === 1;
  }

  /** A wildcard may match nothing: reaching it also reaches the element after it. */
  private close(positions: Uint8Array): void {
    for (let i = 0; i < this.pieces.length; i++) {
      if (positions[i] && (this.pieces[i] === ANY || this.pieces[i] === SEGMENT)) positions[i + 1] = 1;
    }
  }
}

const ANY = Symbol('**');
const SEGMENT = Symbol('*');
type Piece = string | typeof ANY | typeof SEGMENT;
