/**
 * What a forward recording (`record --forward`) names as its target: it has one per exchange, the
 * origin its URL starts with, and `show` and the inspector group its exchanges by them.
 */
export const FORWARD_TARGET = 'forward proxy';

/** The host (and port, when not the scheme's default) an exchange of a forward recording went to; '-' when it has no URL. */
export function forwardHostOf(exchange: { transport: string; url: string | null }): string {
  if (exchange.url === null) return '-';
  if (exchange.transport === 'tunnel') return exchange.url.replace(/:(80|443)$/, '');
  try {
    return new URL(exchange.url).host || '-';
  } catch {
    return '-';
  }
}

/** Row indexes grouped by key, groups in the order their key first appears, rows in order within each. */
export function groupOrder(keys: readonly string[]): number[] {
  const groups = new Map<string, number[]>();
  keys.forEach((key, i) => {
    const group = groups.get(key);
    if (group) group.push(i);
    else groups.set(key, [i]);
  });
  return [...groups.values()].flat();
}
