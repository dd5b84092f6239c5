import { readFileSync } from 'node:fs';
import { parseXml, type XmlElement } from './xml.js';

/**
 * A structural check of an XML document against an XSD, for the rules that JUnit XSDs use: global
 * element declarations (`xs:element name=…`) with a complex type (inline or named) or a simple type
 * (`type="xs:string"`), their attributes (`use="required"`, a named simple type's `xs:pattern`),
 * mixed content, and content models of `xs:sequence` and `xs:choice` over `xs:element ref=…` or
 * local `xs:element name=…`, with `minOccurs`/`maxOccurs`. Not a general validator: a schema that
 * uses more (groups, extensions, namespaces of its own) throws rather than passing unchecked.
 * Returns the problems found, empty when the document conforms.
 */
export function checkAgainstXsd(xml: string, xsdFile: string): string[] {
  const schema = parseXml(readFileSync(xsdFile, 'utf8'));
  const top = new Map<string, XmlElement>();
  const types = new Map<string, XmlElement>();
  const patterns = new Map<string, RegExp>();
  for (const child of schema.children) {
    if (child.name === 'xs:element') top.set(child.attributes.name!, child);
    else if (child.name === 'xs:complexType') types.set(child.attributes.name!, child);
    else if (child.name === 'xs:simpleType') {
      const pattern = child.children.find((c) => c.name === 'xs:restriction')?.children.find((c) => c.name === 'xs:pattern');
      if (!pattern) throw new Error(`simple type ${child.attributes.name} has no pattern: not supported`);
      patterns.set(child.attributes.name!, new RegExp(`^(?:${pattern.attributes.value})$`));
    } else throw new Error(`${child.name} at the top of the schema: not supported`);
  }
  const problems: string[] = [];
  const doc = parseXml(xml);
  const declaration = top.get(doc.name);
  if (!declaration) return [`<${doc.name}> is not a root element the schema declares`];
  check(doc, declaration, `/${doc.name}`);
  return problems;

  function complexTypeOf(decl: XmlElement): XmlElement | undefined {
    const inline = decl.children.find((c) => c.name === 'xs:complexType');
    if (inline) return inline;
    const type = decl.attributes.type;
    if (type === undefined || type === 'xs:string') return undefined;
    const named = types.get(type);
    if (!named) throw new Error(`type ${type}: not supported`);
    return named;
  }

  function check(el: XmlElement, decl: XmlElement, path: string): void {
    const type = complexTypeOf(decl);
    if (!type) {
      // A simple type (xs:string): text only.
      if (el.children.length > 0) problems.push(`${path}: <${el.name}> holds text only, not <${el.children[0]!.name}>`);
      if (Object.keys(el.attributes).length > 0) problems.push(`${path}: <${el.name}> has no attributes, not ${Object.keys(el.attributes).join(', ')}`);
      return;
    }
    const declared = new Map(type.children.filter((c) => c.name === 'xs:attribute').map((a) => [a.attributes.name!, a]));
    for (const [name, a] of declared) if (a.attributes.use === 'required' && !Object.hasOwn(el.attributes, name)) problems.push(`${path}: attribute ${name} is required`);
    for (const [name, value] of Object.entries(el.attributes)) {
      const a = declared.get(name);
      if (!a) {
        problems.push(`${path}: attribute ${name} is not declared`);
        continue;
      }
      const pattern = patterns.get(a.attributes.type ?? '');
      if (pattern && !pattern.test(value)) problems.push(`${path}: attribute ${name}="${value}" does not match ${a.attributes.type}`);
    }
    if (type.attributes.mixed !== 'true' && el.text.trim() !== '') problems.push(`${path}: <${el.name}> holds no text, has ${JSON.stringify(el.text.trim().slice(0, 40))}`);
    const model = type.children.find((c) => c.name === 'xs:sequence' || c.name === 'xs:choice');
    if (!model) {
      if (el.children.length > 0) problems.push(`${path}: <${el.name}> holds no elements, has <${el.children[0]!.name}>`);
      return;
    }
    const rest = match(model, el.children, 0);
    if (rest === undefined || rest !== el.children.length) problems.push(`${path}: <${el.children[rest ?? 0]?.name ?? '(end)'}> is not allowed there in <${el.name}>`);
    el.children.forEach((child, i) => {
      const childDecl = declarationOf(model, child.name);
      if (childDecl) check(child, childDecl, `${path}/${child.name}[${i}]`);
    });
  }

  /** The declaration a child named `name` takes under `model` (a ref to a global one, or a local one). */
  function declarationOf(model: XmlElement, name: string): XmlElement | undefined {
    for (const particle of model.children) {
      if (particle.name === 'xs:element') {
        if (particle.attributes.ref === name) return top.get(name);
        if (particle.attributes.name === name) return particle;
      } else if (particle.name === 'xs:sequence' || particle.name === 'xs:choice') {
        const found = declarationOf(particle, name);
        if (found) return found;
      }
    }
    return undefined;
  }

  /** How far `particle` (with its occurrences) matches children from `from`; undefined when it cannot. Greedy, enough for these models. */
  function match(particle: XmlElement, children: XmlElement[], from: number): number | undefined {
    const min = Number(particle.attributes.minOccurs ?? '1');
    const max = particle.attributes.maxOccurs === 'unbounded' ? Infinity : Number(particle.attributes.maxOccurs ?? '1');
    let at = from;
    let times = 0;
    while (times < max) {
      const next = once(particle, children, at);
      if (next === undefined) break;
      times++;
      // An empty match satisfies the particle once, and cannot go further.
      if (next === at) break;
      at = next;
    }
    return times >= min ? at : undefined;
  }

  function once(particle: XmlElement, children: XmlElement[], at: number): number | undefined {
    switch (particle.name) {
      case 'xs:element': {
        const name = particle.attributes.ref ?? particle.attributes.name;
        return children[at]?.name === name ? at + 1 : undefined;
      }
      case 'xs:sequence': {
        let here: number | undefined = at;
        for (const p of particle.children) {
          here = match(p, children, here);
          if (here === undefined) return undefined;
        }
        return here;
      }
      case 'xs:choice': {
        let empty = false;
        for (const p of particle.children) {
          const next = match(p, children, at);
          if (next !== undefined && next > at) return next;
          if (next === at) empty = true;
        }
        return empty ? at : undefined;
      }
      default:
        throw new Error(`${particle.name} in a content model: not supported`);
    }
  }
}
