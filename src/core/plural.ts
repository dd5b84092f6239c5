/**
 * A count with its noun in the right number: `1 exchange`, `2 exchanges`, `0 findings`. The plural
 * is the noun plus `s` unless given (`count(n, 'miss', 'misses')`). Every count the CLI prints goes
 * through here, so none says "1 findings".
 */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
