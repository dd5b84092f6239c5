/** commander accumulator for repeatable options (`--schemas a --schemas b`). */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
