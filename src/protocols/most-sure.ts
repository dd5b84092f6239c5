/**
 * The first candidate of the highest score above 0, or undefined. Scored in a loop, not as pairs:
 * every exchange the recorder opens is classified twice or more, ten protocols each time.
 */
export function mostSure<T>(candidates: readonly T[], score: (candidate: T) => number): T | undefined {
  let top: T | undefined;
  let topScore = 0;
  for (let i = 0; i < candidates.length; i++) {
    const candidate = candidates[i];
    const sure = score(candidate);
    if (sure > topScore) {
      top = candidate;
      topScore = sure;
    }
  }
  return top;
}
