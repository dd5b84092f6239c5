/**
 * A small, strict XML 1.0 reader for tests: elements, attributes, text, CDATA, comments, the XML
 * declaration, and the five entities and character references. It throws on what a conforming
 * parser rejects in what our reports could contain: a character XML 1.0 forbids, a `<` or a bare
 * `&` in text or an attribute, a reference to a forbidden character, mismatched tags, a repeated
 * attribute, content after the root. No DTDs (a bare `<!DOCTYPE html>` is skipped), namespaces are kept as written (`xs:element`).
 */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** The element's own text (CDATA included), its children's left out. */
  text: string;
}

const NAME = /^[A-Za-z_:][-A-Za-z0-9_:.]*/;
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function parseXml(source: string): XmlElement {
  const bad = FORBIDDEN.exec(source);
  if (bad) throw new Error(`a character XML 1.0 forbids, U+${bad[0].charCodeAt(0).toString(16).padStart(4, '0')}, at ${bad.index}`);
  let at = 0;
  const fail = (why: string): never => {
    throw new Error(`${why} at ${at}: ${JSON.stringify(source.slice(at, at + 40))}`);
  };
  const skipMisc = () => {
    for (;;) {
      const ws = /^\s*/.exec(source.slice(at))![0];
      at += ws.length;
      if (source.startsWith('<?', at)) at = endOf('?>');
      // A document type with no internal subset (`<!DOCTYPE html>`, an HTML page written as XML), skipped.
      else if (/^<!DOCTYPE [A-Za-z]+>/.test(source.slice(at, at + 40))) at = endOf('>');
      else if (source.startsWith('<!--', at)) at = endOf('-->');
      else return;
    }
  };
  const endOf = (close: string) => {
    const end = source.indexOf(close, at);
    if (end < 0) fail(`no ${close}`);
    return end + close.length;
  };
  const name = () => {
    const m = NAME.exec(source.slice(at));
    if (!m) fail('a name expected');
    at += m![0].length;
    return m![0];
  };
  const decode = (raw: string, where: string) =>
    raw.replace(/&([^;]*);?/g, (whole, ref: string) => {
      if (!whole.endsWith(';')) fail(`a bare & in ${where}`);
      let char: string | undefined;
      if (ref.startsWith('#x')) char = String.fromCodePoint(parseInt(ref.slice(2), 16));
      else if (ref.startsWith('#')) char = String.fromCodePoint(parseInt(ref.slice(1), 10));
      else char = ENTITIES[ref];
      if (char === undefined) fail(`an unknown entity &${ref}; in ${where}`);
      if (FORBIDDEN.test(char!)) fail(`a reference to a forbidden character in ${where}`);
      return char!;
    });
  const element = (): XmlElement => {
    if (source[at] !== '<') fail('< expected');
    at++;
    const el: XmlElement = { name: name(), attributes: {}, children: [], text: '' };
    for (;;) {
      at += /^\s*/.exec(source.slice(at))![0].length;
      if (source.startsWith('/>', at)) {
        at += 2;
        return el;
      }
      if (source[at] === '>') {
        at++;
        break;
      }
      const attribute = name();
      const m = /^\s*=\s*("([^"]*)"|'([^']*)')/.exec(source.slice(at));
      if (!m) fail(`a quoted value for ${attribute} expected`);
      const raw = m![2] ?? m![3]!;
      if (raw.includes('<')) fail(`a < in attribute ${attribute}`);
      if (Object.hasOwn(el.attributes, attribute)) fail(`attribute ${attribute} given twice`);
      // Attribute-value normalisation: literal white space becomes a space; references stay as they are.
      el.attributes[attribute] = decode(raw.replace(/[\t\n\r]/g, ' '), `attribute ${attribute}`);
      at += m![0].length;
    }
    for (;;) {
      if (source.startsWith('</', at)) {
        at += 2;
        const closing = name();
        if (closing !== el.name) fail(`</${closing}> closes <${el.name}>`);
        at += /^\s*/.exec(source.slice(at))![0].length;
        if (source[at] !== '>') fail('> expected');
        at++;
        return el;
      }
      if (source.startsWith('<![CDATA[', at)) {
        const end = source.indexOf(']]>', at);
        if (end < 0) fail('an unclosed CDATA section');
        el.text += source.slice(at + 9, end);
        at = end + 3;
      } else if (source.startsWith('<!--', at)) {
        at = endOf('-->');
      } else if (source[at] === '<') {
        el.children.push(element());
      } else {
        const end = source.indexOf('<', at);
        if (end < 0) fail(`<${el.name}> is not closed`);
        const raw = source.slice(at, end);
        if (raw.includes(']]>')) fail(']]> in text');
        el.text += decode(raw, `the text of <${el.name}>`);
        at = end;
      }
    }
  };
  skipMisc();
  const root = element();
  skipMisc();
  if (at !== source.length) fail('content after the root element');
  return root;
}
