// `node bench/record-floor.js --pack N[,N…]`: the floor of an SSE event and a WebSocket frame with a stream's
// messages stored N to a row (bench/lib/message-pack.js) instead of a row each, everything else of the floor
// the same. Its options and its report, beside the floor of a row per message of the same run.

/** --pack's sizes: whole numbers of messages a row, 2 to 65,535 (none when the option is not given). */
export function packSizesOption(text) {
  if (text === undefined) return [];
  const sizes = text.split(',').map(Number);
  if (sizes.length === 0 || sizes.some((n) => !Number.isInteger(n) || n < 2 || n > 0xffff)) throw new Error(`--pack takes messages a row, 2 to 65535, comma separated: not ${text}`);
  return [...new Set(sizes)];
}

/** --gap SSE,WS: the recorder's µs per message above the floor, from an earlier run (undefined when not given). */
export function gapOption(text) {
  if (text === undefined) return undefined;
  const [sse, ws, ...rest] = text.split(',').map(Number);
  if (rest.length > 0 || !Number.isFinite(sse) || !Number.isFinite(ws)) throw new Error(`--gap takes the recorder's µs above the floor for an SSE event and a WS frame, e.g. 2.1,3.45: not ${text}`);
  return { sse, ws };
}

const us = (x) => (x === undefined ? '—' : x.toFixed(2)).padStart(7);
const line = (label, sse, ws) => console.log(`  ${label.padEnd(52)} ${sse}   ${ws}`);
const perMessage = (bytes, messages) => `${(bytes / messages).toFixed(1)} B`;

/**
 * Prints, for a row per message and for each of `packs`: the row alone (`rowAlone[kind].row` and
 * `.packedRow.get(N)`), the floor together (`together[kind].get(N)`), what one round stored, and with `gap`
 * (the recorder's µs above the floor of a row per message) the floor plus that gap against `target`.
 */
export function printPackedFloor({ packs, rowAlone, together, gap, target }) {
  const sizes = [1, ...packs];
  const name = (n) => (n === 1 ? '1 a row (as above)' : `${n} a row`);
  console.log(`messages N to a row (--pack): a message_packs row per N messages of the stream, the rest of the floor as above`);
  line('(µs per message)', 'SSE event'.padStart(7), 'WS frame'.padStart(7));
  for (const n of sizes) {
    const piece = (kind) => (n === 1 ? rowAlone[kind].row : rowAlone[kind].packedRow.get(n));
    line(`row alone, ${name(n)}`, us(piece('sse')), us(piece('ws')));
  }
  for (const n of sizes) {
    const sse = together.sse.get(n);
    const ws = together.ws.get(n);
    line(`together, ${name(n)}`, us(sse.all), us(ws.all));
    if (n === 1) continue;
    line('… the posting thread / the worker / the rest', [sse.main, sse.worker, sse.rest].map((x) => x.toFixed(2)).join(' / '), [ws.main, ws.worker, ws.rest].map((x) => x.toFixed(2)).join(' / '));
    line('… its rounds', sse.rounds.map((x) => x.toFixed(2)).join(' / '), ws.rounds.map((x) => x.toFixed(2)).join(' / '));
  }
  // What was written and committed, read back from the closed file: rows, and bytes a message.
  for (const kind of ['sse', 'ws']) {
    for (const n of sizes) {
      const { rows, messages, rawBytes, metaBytes, fileBytes } = together[kind].get(n).stored;
      console.log(
        `  stored in a round, ${kind === 'sse' ? 'SSE' : 'WS '} ${`${n} a row:`.padEnd(11)} ${rows.toLocaleString('en')} rows for ${messages.toLocaleString('en')} messages; ` +
          `raw ${perMessage(rawBytes, messages)} + meta ${perMessage(metaBytes, messages)} a message; the file ${perMessage(fileBytes, messages)} a message`,
      );
    }
  }
  if (gap === undefined) return;
  console.log(`  the floor + the recorder's gap above it (${gap.sse.toFixed(2)} / ${gap.ws.toFixed(2)} µs, ${gap.source}), against ≤ ${target} µs`);
  for (const n of sizes) {
    const sse = together.sse.get(n).all + gap.sse;
    const ws = together.ws.get(n).all + gap.ws;
    line(`… ${name(n)}`, `${us(sse)} ${sse <= target ? 'met' : 'over'}`, `${us(ws)} ${ws <= target ? 'met' : 'over'}`);
  }
}
