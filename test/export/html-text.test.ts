/**
 * The HTML view's escaping: recorded text is only ever text, in an element or an attribute, and
 * what a page cannot show is written visibly; a cut names how much it left out.
 */
import { describe, expect, it } from 'vitest';
import { cutText, element, htmlAttribute, htmlText, textIn } from '../../src/export/html-text.js';
import { parseXml } from '../support/xml.js';

const HOSTILE = `</td></script><script>alert(1)</script><img src=x onerror="alert('2')"> & &amp; \u0001\u001b[31m\u0085 \ud800 😀\ttab\nline`;

describe('html text', () => {
  it('escapes markup in text, and quotes too in attributes; controls and lone surrogates are written visibly', () => {
    expect(htmlText('a <b> & "c" \'d\'')).toBe('a &lt;b&gt; &amp; "c" \'d\'');
    expect(htmlAttribute('a <b> & "c" \'d\'')).toBe('a &lt;b&gt; &amp; &quot;c&quot; &#39;d&#39;');
    expect(htmlText('\u0001\u001b\u007f\u0085 \ud800x \udc00 😀\t\n\r')).toBe('\\u0001\\u001b\\u007f\\u0085 \\ud800x \\udc00 😀\t\n\r');
  });

  it('an element built of hostile text parses back as that element alone, its text and attribute intact', () => {
    const html = element('td', { title: HOSTILE, open: true, hidden: false, gone: undefined }, textIn('span', {}, HOSTILE));
    const td = parseXml(html);
    const shown = HOSTILE.replace('\u0001\u001b', '\\u0001\\u001b').replace('\u0085', '\\u0085').replace('\ud800', '\\ud800');
    expect(td.attributes).toEqual({ title: shown.replace(/[\t\n]/g, ' '), open: 'open' });
    expect(td.children.map((c) => c.name)).toEqual(['span']);
    expect(td.children[0]!.children).toEqual([]);
    expect(td.children[0]!.text).toBe(shown);
  });

  it('cuts long text, never inside a surrogate pair, and says how much is left out', () => {
    expect(cutText('abc', 3)).toBe('abc');
    expect(cutText('x'.repeat(5000), 10)).toBe(`${'x'.repeat(10)}… (4,990 more characters)`);
    expect(cutText('abcdefghi😀z', 10)).toBe('abcdefghi… (3 more characters)');
  });
});
