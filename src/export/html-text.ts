/**
 * Text from a recording made safe as an HTML page's element text: `&`, `<` and `>` as entities, so a
 * peer's `</script>` or `<img onerror=…>` is only ever text. A control character (tab and line
 * breaks aside), U+FFFE, U+FFFF or a lone surrogate, which a page cannot show, is written visibly as
 * `\u0001`; the result is also well-formed XML.
 */
export function htmlText(text: string): string {
  return visible(text).replace(/[&<>]/g, (c) => ENTITIES[c]!);
}

/** A quoted attribute value: as htmlText, and both quotes as entities too. */
export function htmlAttribute(text: string): string {
  return visible(text).replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

function visible(text: string): string {
  return text.replace(UNSHOWABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// eslint-disable-next-line no-control-regex
const UNSHOWABLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `text` cut to `max` characters (never inside a surrogate pair), with how much was left out: `… (1,234 more characters)`. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1] ?? '') ? max - 1 : max;
  return `${text.slice(0, end)}… (${(text.length - end).toLocaleString('en-US')} more characters)`;
}

/** An element: `tag` with its attributes (values escaped; `true` for a boolean attribute, written as `open="open"` so the page stays well-formed XML) around `inner`, which is HTML already. */
export function element(tag: string, attributes: Record<string, string | number | boolean | undefined>, inner = ''): string {
  const written = Object.entries(attributes)
    .filter(([, value]) => value !== undefined && value !== false)
    .map(([name, value]) => ` ${name}="${value === true ? name : htmlAttribute(String(value))}"`)
    .join('');
  return `<${tag}${written}>${inner}</${tag}>`;
}

/** Escaped text in an element: `el('td', {}, text)`. */
export function textIn(tag: string, attributes: Record<string, string | number | boolean | undefined>, text: string): string {
  return element(tag, attributes, htmlText(text));
}
