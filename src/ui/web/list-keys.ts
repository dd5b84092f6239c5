
/** The keys that move through a list: ↓ and j to the next item, ↑ and k to the previous one. */
const STEPS: Record<string, 1 | -1> = { ArrowDown: 1, j: 1, ArrowUp: -1, k: -1 };

/**
 * Listens for ↑/↓ and j/k on the page and hands each to `step` while `active()` says a list is on
 * screen, unless the user is typing in a field or holds a modifier. The key's own scrolling is then
 * suppressed, so the selection moves by one row; elsewhere the arrows scroll as usual.
 */
export function listenForListKeys(active: () => boolean, step: (delta: 1 | -1) => Promise<void>): void {
  document.addEventListener('keydown', (event) => {
    const delta = STEPS[event.key];
    if (delta === undefined || event.altKey || event.ctrlKey || event.metaKey || !active()) return;
    const target = event.target as HTMLElement | null;
    if (target !== null && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    event.preventDefault();
    void step(delta).catch(() => undefined);
  });
}
