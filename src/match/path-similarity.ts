/**
 * How many path segments differ, position by position (a missing segment counts as differing):
 * `/v1/session/other` is 1 from `/v1/session/pd-a` and 2 from `/v1/capabilities`. Misses use it to
 * pick the nearest recorded request.
 */
export function segmentDistance(a: string, b: string): number {
  const as = a.split('/');
  const bs = b.split('/');
  let distance = 0;
  for (let i = 0; i < Math.max(as.length, bs.length); i++) if (as[i] !== bs[i]) distance++;
  return distance;
}
