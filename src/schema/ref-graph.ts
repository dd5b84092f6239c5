import type { SchemaDocument } from './schema-document.js';

/** A location inside a loaded document: its $id and an RFC 6901 pointer ('' is the root). */
interface Location {
  docId: string;
  pointer: string;
}

export interface UnresolvedRef {
  /** The document that holds the $ref. */
  from: string;
  ref: string;
  /** The $id the ref points at, which is not loaded. */
  missingId: string;
}

function decodePointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((t) => decodeURIComponent(t).replace(/~1/g, '/').replace(/~0/g, '~'));
}

function at(json: unknown, pointer: string): unknown {
  let node = json;
  for (const token of decodePointer(pointer)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

/**
 * Static map of which documents each schema location depends on, through `$ref`.
 * ajv reports a missing reference only when it compiles; we want to know before, so a
 * `$def` that needs an unloaded document is `unchecked` with a reason while its
 * neighbours are still checked.
 */
export class RefGraph {
  private readonly docs = new Map<string, SchemaDocument>();
  private readonly anchors = new Map<string, Map<string, string>>();
  private readonly refsAt = new Map<string, Array<{ ref: string; target: Location | { missingId: string } }>>();
  private readonly missingCache = new Map<string, string[]>();

  constructor(documents: Iterable<SchemaDocument>) {
    for (const doc of documents) this.docs.set(doc.id, doc);
    for (const doc of this.docs.values()) this.anchors.set(doc.id, collectAnchors(doc.json));
  }

  /** Every `$ref` in every loaded document whose target document is not loaded. */
  unresolved(): UnresolvedRef[] {
    const out: UnresolvedRef[] = [];
    for (const doc of this.docs.values()) {
      walk(doc.json, (node) => {
        const ref = node.$ref;
        if (typeof ref !== 'string') return;
        const target = this.resolve(doc.id, ref);
        if ('missingId' in target) out.push({ from: doc.id, ref, missingId: target.missingId });
      });
    }
    return out;
  }

  /** The $ids of the loaded documents that `docId`'s `$ref`s reach, directly or through others, itself included; sorted. */
  documentsReachedFrom(docId: string): string[] {
    const reached = new Set<string>();
    const stack = [docId];
    while (stack.length > 0) {
      const id = stack.pop()!;
      const doc = this.docs.get(id);
      if (!doc || reached.has(id)) continue;
      reached.add(id);
      walk(doc.json, (node) => {
        if (typeof node.$ref !== 'string') return;
        const target = this.resolve(id, node.$ref);
        if ('docId' in target) stack.push(target.docId);
      });
    }
    return [...reached].sort();
  }

  /** The $ids of unloaded documents reachable from `ref`, sorted; empty when everything resolves. */
  missingFor(ref: string): string[] {
    const cached = this.missingCache.get(ref);
    if (cached) return cached;
    const [docId] = splitRef(ref);
    const start = this.resolve(docId, ref);
    const missing = new Set<string>();
    if ('missingId' in start) missing.add(start.missingId);
    else {
      const seen = new Set<string>();
      const stack: Location[] = [start];
      while (stack.length > 0) {
        const loc = stack.pop()!;
        const key = `${loc.docId}#${loc.pointer}`;
        if (seen.has(key)) continue;
        seen.add(key);
        for (const edge of this.edgesOf(loc)) {
          if ('missingId' in edge.target) missing.add(edge.target.missingId);
          else stack.push(edge.target);
        }
      }
    }
    const result = [...missing].sort();
    this.missingCache.set(ref, result);
    return result;
  }

  private edgesOf(loc: Location) {
    const key = `${loc.docId}#${loc.pointer}`;
    let edges = this.refsAt.get(key);
    if (edges) return edges;
    edges = [];
    const doc = this.docs.get(loc.docId);
    const node = doc ? at(doc.json, loc.pointer) : undefined;
    // $defs below this node are reached only through a $ref, so they are not walked here.
    walk(node, (n) => {
      if (typeof n.$ref === 'string') edges!.push({ ref: n.$ref, target: this.resolve(loc.docId, n.$ref) });
    }, true);
    this.refsAt.set(key, edges);
    return edges;
  }

  private resolve(baseId: string, ref: string): Location | { missingId: string } {
    let url: URL;
    try {
      url = new URL(ref, baseId);
    } catch {
      return { missingId: ref };
    }
    const fragment = decodeURIComponent(url.hash.slice(1));
    url.hash = '';
    const docId = url.href;
    if (!this.docs.has(docId)) return { missingId: docId };
    if (fragment === '' || fragment.startsWith('/')) return { docId, pointer: fragment };
    const pointer = this.anchors.get(docId)?.get(fragment);
    return pointer === undefined ? { missingId: `${docId}#${fragment}` } : { docId, pointer };
  }
}

function splitRef(ref: string): [string, string] {
  const hash = ref.indexOf('#');
  return hash < 0 ? [ref, ''] : [ref.slice(0, hash), ref.slice(hash + 1)];
}

function collectAnchors(json: unknown): Map<string, string> {
  const anchors = new Map<string, string>();
  const visit = (node: unknown, pointer: string) => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      node.forEach((child, i) => visit(child, `${pointer}/${i}`));
      return;
    }
    const record = node as Record<string, unknown>;
    if (typeof record.$anchor === 'string') anchors.set(record.$anchor, pointer);
    for (const [key, child] of Object.entries(record)) {
      // `enum`/`const` values are data, not schemas.
      if (key === 'enum' || key === 'const' || key === 'examples' || key === 'default') continue;
      visit(child, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    }
  };
  visit(json, '');
  return anchors;
}

function walk(node: unknown, visit: (n: Record<string, unknown>) => void, skipDefs = false): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const child of node) walk(child, visit, skipDefs);
    return;
  }
  const record = node as Record<string, unknown>;
  visit(record);
  for (const [key, child] of Object.entries(record)) {
    if (key === 'enum' || key === 'const' || key === 'examples' || key === 'default') continue;
    if (skipDefs && (key === '$defs' || key === 'definitions')) continue;
    walk(child, visit, skipDefs);
  }
}
