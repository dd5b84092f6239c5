/**
 * A number as JSON.stringify writes it, written as ASCII bytes straight into an output chunk: a
 * message line's `seq` and `tOffsetMs` (export/ndjson-export.ts), twice per message of an export, where
 * making each number's string, joining it into the line's head and encoding that cost more than the
 * digits.
 */

/** A number as JSON.stringify writes it (String's text for a finite one), without the serializer's entry. */
export function numberText(x: number): string {
  return Number.isFinite(x) ? `${x}` : 'null';
}

/** The most bytes writeNumberText writes (`-1.2345678901234567e-308`, 24, or `null`). */
export const NUMBER_TEXT_MOST = 25;

/**
 * Writes numberText(x) into `chunk` at `at` and returns where it ends. An integer, or a number of at
 * most three decimals (a time offset in ms, to the µs), below 10^12 is written from its thousandths:
 * the double nearest to k/1000 prints as k's digits with the point three from the end and the trailing
 * zeros left out, since no other decimal of three places or fewer lies within an ulp of it (an ulp
 * is below 0.001 under 2^43), so none is shorter. Any other number is written from its text.
 */
export function writeNumberText(chunk: Uint8Array, at: number, x: number): number {
  const abs = x < 0 ? -x : x;
  // NaN fails both tests.
  if (abs < 1e12) {
    const thousandths = Math.round(abs * 1000);
    if (thousandths / 1000 === abs) {
      if (x < 0) chunk[at++] = 0x2d;
      const fraction = thousandths % 1000;
      at = writeDigits(chunk, at, (thousandths - fraction) / 1000);
      if (fraction === 0) return at;
      chunk[at++] = 0x2e;
      chunk[at++] = 0x30 + Math.floor(fraction / 100);
      const rest = fraction % 100;
      if (rest === 0) return at;
      chunk[at++] = 0x30 + Math.floor(rest / 10);
      if (rest % 10 !== 0) chunk[at++] = 0x30 + (rest % 10);
      return at;
    }
  }
  const text = numberText(x);
  for (let i = 0; i < text.length; i++) chunk[at++] = text.charCodeAt(i);
  return at;
}

/** Writes a non-negative integer below 2^53 in decimal, and returns where it ends. */
function writeDigits(chunk: Uint8Array, at: number, n: number): number {
  let end = at + 1;
  for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) end++;
  for (let i = end - 1, rest = n; i >= at; i--, rest = Math.floor(rest / 10)) chunk[i] = 0x30 + (rest % 10);
  return end;
}
