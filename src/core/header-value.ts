/** Headers as Node gives them (`IncomingMessage.headers`) or a recording stores them: name → value(s). */
export type HeaderMap = Readonly<Record<string, string | string[] | undefined>>;

/** A header's value, looked up case-insensitively; the first one when it was sent more than once. */
export function headerValue(headers: HeaderMap | null | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}
