/**
 * Text from recorded traffic made inert in GitHub-flavoured Markdown: HTML markup characters as
 * entities, every character that means something inside a line backslash-escaped (`|` included, so a
 * table cell cannot end early; emphasis, code, links, strike-through), line breaks as spaces and other control characters written visibly.
 */
export function markdownText(text: string): string {
  return text
    .replace(/\r\n?|\n/g, ' ')
    .replace(/[\u0000-\u001F\u007F]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/[\\`*_[\]|~]/g, (c) => `\\${c}`)
    .replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

/** A fenced code block that holds `text` whatever it contains: its fence is longer than any run of backticks inside. */
export function fencedBlock(text: string): string[] {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return [fence, text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`), fence];
}
