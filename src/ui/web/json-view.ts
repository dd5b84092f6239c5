import type { FindingInfo } from '../api-types.js';
import { h } from './dom.js';

/** Above this many lines the rest of the document is cut off (the raw message is still downloadable via the API). */
const MAX_LINES = 20_000;

interface Line {
  pointer: string;
  parts: Array<[string, string]>;
}

function token(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Pretty-prints a JSON value as lines, remembering for each JSON pointer the lines its value spans,
 * so findings can be highlighted where they point.
 */
export function layoutJson(value: unknown): { lines: Line[]; spans: Map<string, [number, number]> } {
  const lines: Line[] = [];
  const spans = new Map<string, [number, number]>();
  const scalar = (v: unknown): [string, string] => {
    if (typeof v === 'string') return ['js', JSON.stringify(v)];
    if (typeof v === 'number') return ['jn', String(v)];
    if (typeof v === 'boolean') return ['jb', String(v)];
    return ['jz', 'null'];
  };
  const walk = (v: unknown, pointer: string, indent: string, key: string | undefined, comma: boolean) => {
    if (lines.length > MAX_LINES) return;
    const prefix: Array<[string, string]> = [['', indent]];
    if (key !== undefined) prefix.push(['jk', JSON.stringify(key)], ['', ': ']);
    const start = lines.length;
    const isArray = Array.isArray(v);
    if (v !== null && typeof v === 'object') {
      const entries: Array<[string, unknown]> = isArray ? (v as unknown[]).map((x, i) => [String(i), x]) : Object.entries(v as Record<string, unknown>);
      const [open, close] = isArray ? ['[', ']'] : ['{', '}'];
      if (entries.length === 0) {
        lines.push({ pointer, parts: [...prefix, ['', open + close + (comma ? ',' : '')]] });
      } else {
        lines.push({ pointer, parts: [...prefix, ['', open]] });
        entries.forEach(([k, x], i) => walk(x, `${pointer}/${token(k)}`, indent + '  ', isArray ? undefined : k, i < entries.length - 1));
        lines.push({ pointer, parts: [['', indent + close + (comma ? ',' : '')]] });
      }
    } else {
      lines.push({ pointer, parts: [...prefix, scalar(v), ['', comma ? ',' : '']] });
    }
    spans.set(pointer, [start, lines.length - 1]);
  };
  walk(value, '', '', undefined, false);
  return { lines, spans };
}

/** The pointer itself when the document has it, else its nearest ancestor that exists. */
export function resolvePointer(spans: Map<string, unknown>, pointer: string): string {
  let p = pointer;
  while (p !== '' && !spans.has(p)) p = p.slice(0, p.lastIndexOf('/'));
  return p;
}

/**
 * The JSON, pretty-printed, one element per line (`.jl`, `data-pointer` = the value starting there).
 * The lines of each finding's value get `hl-error`/`hl-warning`; its first line `hl-start` and
 * `data-finding` = the finding's pointer, with the rule shown at the end of the line. The lines of
 * the values at `changed` pointers (a diff's differences) get `hl-changed`.
 */
export function renderJson(value: unknown, findings: FindingInfo[] = [], changed: string[] = []): HTMLElement {
  const { lines, spans } = layoutJson(value);
  const pre = h('pre', { class: 'json' });
  const changedLines = new Set<number>();
  for (const pointer of changed) {
    const span = spans.get(resolvePointer(spans, pointer));
    if (span !== undefined) for (let i = span[0]; i <= span[1]; i++) changedLines.add(i);
  }
  const marks = new Map<number, FindingInfo[]>();
  const cls = new Map<number, Set<string>>();
  for (const f of findings) {
    const at = resolvePointer(spans, f.pointer);
    const [start, end] = spans.get(at)!;
    for (let i = start; i <= end; i++) {
      let set = cls.get(i);
      if (set === undefined) cls.set(i, (set = new Set()));
      set.add(f.severity === 'error' ? 'hl-error' : 'hl-warning');
    }
    const list = marks.get(start) ?? [];
    list.push(f);
    marks.set(start, list);
  }
  lines.forEach((line, i) => {
    const el = h('div', { class: 'jl', 'data-pointer': line.pointer });
    for (const [c, text] of line.parts) el.appendChild(c ? h('span', { class: c }, text) : document.createTextNode(text));
    const set = cls.get(i);
    if (set) for (const c of set) el.classList.add(c);
    if (changedLines.has(i)) el.classList.add('hl-changed');
    const here = marks.get(i);
    if (here) {
      el.classList.add('hl-start');
      if (here.every((f) => f.severity === 'warning')) el.classList.add('hl-warning-start');
      el.setAttribute('data-finding', here.map((f) => f.pointer).join(' '));
      el.title = here.map((f) => `${f.rule} (${f.severity}) at ${f.pointer || '/'}: ${f.message}`).join('\n');
      el.appendChild(h('span', { class: 'mark' }, `◀ ${here.map((f) => f.rule).join(', ')}`));
    }
    pre.appendChild(el);
  });
  if (lines.length > MAX_LINES) pre.appendChild(h('div', { class: 'jl dim' }, `… cut at ${MAX_LINES} lines`));
  return pre;
}
