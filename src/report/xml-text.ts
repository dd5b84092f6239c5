/**
 * Text made safe for XML 1.0. A character XML 1.0 does not allow at all (C0 controls but tab, line
 * feed and carriage return; U+FFFE, U+FFFF; a lone surrogate) cannot be written even as a character
 * reference, so it is written visibly instead, as `\u0001`; recorded traffic may hold anything.
 */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function xmlChars(text: string): string {
  return text.replace(NOT_XML, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** An attribute value, quoted with `"`: markup characters as entities, and tab and line breaks as references so that they survive attribute normalisation. */
export function xmlAttribute(text: string): string {
  return xmlChars(text).replace(/[&<>"'\t\n\r]/g, (c) => ATTRIBUTE_ENTITIES[c]!);
}

const ATTRIBUTE_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\t': '&#9;', '\n': '&#10;', '\r': '&#13;' };

/** Element text as CDATA, kept readable: a `]]>` inside is split over two sections, the only way CDATA can hold it. */
export function xmlCdata(text: string): string {
  return `<![CDATA[${xmlChars(text).replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;
}
