/** Small DOM helpers for the inspector page (no framework). */

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

/** `h('a', {href: '#/', class: 'x', onclick: fn}, 'text', child)` */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(key.replace(/^on/, ''), value);
    else if (key === 'class') el.className = String(value);
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  append(el, ...children);
  return el;
}

export function append(el: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

export function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

/** `plural(1, 'exchange')` → "1 exchange", `plural(2, 'exchange')` → "2 exchanges". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** 1234.5 → "1.23 s", 12 → "12 ms". */
export function fmtMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} kB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** The verdict badge: ✓ valid, ✗ n invalid, – unchecked. */
export function verdictBadge(status: string, findings: number): HTMLElement {
  const text = status === 'valid' ? (findings > 0 ? `✓ ${findings}` : '✓') : status === 'invalid' ? `✗ ${findings}` : '–';
  const cls = status === 'valid' && findings > 0 ? 'warning' : status;
  return h('span', { class: `badge ${cls}`, title: `${status}${findings ? `, ${findings} finding${findings === 1 ? '' : 's'}` : ''}` }, text);
}

export function headersTable(headers: Record<string, string | string[]> | null): HTMLElement {
  if (headers === null || Object.keys(headers).length === 0) return h('div', { class: 'dim' }, '(none)');
  const table = h('table', { class: 'kv' });
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : [value]) table.appendChild(h('tr', {}, h('td', {}, name), h('td', {}, v)));
  }
  return table;
}
