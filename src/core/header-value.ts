/** Headers as Node gives them (`IncomingMessage.headers`) or a recording stores them: name → value(s). */
export type HeaderMap = Readonly<Record<string, string | string[] | undefined>>;

/** A header's value, looked up case-insensitively; the first one when it was sent more than once. */
export function headerValue(headers: HeaderMap | null | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  // for…in, not Object.entries: checkers ask for a header or two of every REST body, and the
  // entries array was most of the cost. Stored names are mostly lower case already.
  for (const key in headers) {
    // Only a name of the same length is lower-cased: a capitalised header (`User-Agent`) would
    // otherwise make a new string per header on each lookup.
    if (key !== wanted && (key.length !== wanted.length || key.toLowerCase() !== wanted)) continue;
    const value = headers[key];
    if (value === undefined) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}
