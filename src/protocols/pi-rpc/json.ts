/**
 * A correlation id as Pi echoes it: any string or number the sender chose. The key keeps
 * `1` and `"1"` apart; `undefined` means the message carries no usable id.
 */
export function idKey(id: unknown): string | undefined {
  return typeof id === 'string' || typeof id === 'number' ? JSON.stringify(id) : undefined;
}
