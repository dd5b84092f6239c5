/** One `data:` line of an SSE block: where its value is in the block, and where in the joined data. */
interface DataLine {
  raw: number;
  data: number;
  length: number;
}

const LINE = /([^\r\n]*)(\r\n|\r|\n|$)/g;

/**
 * Maps positions in an SSE block's data (its `data:` lines' values joined with LF, as SseFramer
 * gives it) to positions in the block's text. Undefined when the block's data lines do not join to
 * `data` (then it is not the block the data came from).
 */
export function sseDataOffsets(block: string, data: string): ((offset: number) => number | undefined) | undefined {
  const lines: DataLine[] = [];
  let joined = 0;
  LINE.lastIndex = 0;
  for (let match = LINE.exec(block); match !== null && match[0].length > 0; match = LINE.exec(block)) {
    const line = match[1];
    if (line === 'data' || line.startsWith('data:')) {
      let value = match.index + Math.min(line.length, 5);
      if (block.charCodeAt(value) === 0x20 && value < match.index + line.length) value++;
      const length = match.index + line.length - value;
      if (block.slice(value, value + length) !== data.slice(joined, joined + length)) return undefined;
      lines.push({ raw: value, data: joined, length });
      joined += length + 1;
    }
  }
  if (joined - 1 !== data.length) return undefined;
  return (offset) => {
    for (const line of lines) if (offset >= line.data && offset < line.data + line.length) return line.raw + offset - line.data;
    return undefined;
  };
}
