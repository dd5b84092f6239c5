/** Colours follow the stream's TTY and respect NO_COLOR (https://no-color.org) and FORCE_COLOR. */
export interface Style {
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

export function styleFor(stream: NodeJS.WriteStream): Style {
  const env = process.env;
  const enabled = env.NO_COLOR ? false : env.FORCE_COLOR ? env.FORCE_COLOR !== '0' : Boolean(stream.isTTY);
  const wrap = (open: number, close: number) => (s: string) => (enabled ? `\x1b[${open}m${s}\x1b[${close}m` : s);
  return { red: wrap(31, 39), green: wrap(32, 39), yellow: wrap(33, 39), dim: wrap(2, 22), bold: wrap(1, 22) };
}
