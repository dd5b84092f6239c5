import { h } from './dom.js';

/** Puts text on the clipboard: the Clipboard API, or, where the page may not use it, a selected textarea. */
export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return;
    } catch {
      // Refused (no permission, page not focused): fall back to the selection.
    }
  }
  const area = h('textarea', { 'aria-hidden': 'true' });
  area.value = text;
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('the browser refused to copy');
}

/**
 * A button that copies what `text()` gives, and says so on itself (`data-copied` is set once the
 * text is on the clipboard, for whoever waits for it).
 */
export function copyButton(label: string, text: () => string | Promise<string>, attrs: Record<string, string> = {}): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'copy', ...attrs }, label);
  button.addEventListener('click', async () => {
    try {
      await copyText(await text());
      button.textContent = `${label} ✓`;
      button.setAttribute('data-copied', String(Number(button.getAttribute('data-copied') ?? '0') + 1));
    } catch (error) {
      button.textContent = `${label} ✗`;
      button.title = (error as Error).message;
    }
  });
  return button;
}
