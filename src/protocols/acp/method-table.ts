import type { Sender } from '../../core/message.js';

/**
 * Which side *handles* a method, from the schema's `x-side` annotation: `agent` methods are
 * called by the client (e.g. `session/prompt`), `client` methods by the agent (e.g.
 * `session/update`, `fs/read_text_file`); `both` and `protocol` (`$/cancel_request`) go either way.
 */
export type AcpSide = 'agent' | 'client' | 'both' | 'protocol';

export type AcpMessageKind = 'request' | 'response' | 'notification';

/** One `$def` of the ACP schema and the side that handles its method. */
export interface AcpDefRef {
  def: string;
  side: AcpSide;
}

/** Per method: the `$def` of a request's params, of a response's result, of a notification's params. */
export interface AcpMethod {
  method: string;
  request?: AcpDefRef;
  response?: AcpDefRef;
  notification?: AcpDefRef;
}

/** The per-method `$defs` of one ACP schema document, read from its `x-method`/`x-side` annotations. */
export class AcpMethodTable {
  private table?: ReadonlyMap<string, AcpMethod>;

  /** `methods` may be given as a function: it is then called on first use, not before. */
  constructor(private readonly methodList: Iterable<AcpMethod> | (() => Iterable<AcpMethod>)) {}

  private get byMethod(): ReadonlyMap<string, AcpMethod> {
    const list = this.methodList;
    return (this.table ??= new Map([...(typeof list === 'function' ? list() : list)].map((m) => [m.method, m])));
  }

  get size(): number {
    return this.byMethod.size;
  }

  get(method: string): AcpMethod | undefined {
    return this.byMethod.get(method);
  }

  methods(): string[] {
    return [...this.byMethod.keys()].sort();
  }
}

/** The side that sends a request or notification handled by `side`; undefined when either side may. */
export function senderFor(side: AcpSide): Sender | undefined {
  if (side === 'agent') return 'client';
  if (side === 'client') return 'server';
  return undefined;
}

const DATA_KEYWORDS = new Set(['enum', 'const', 'examples', 'default']);

/**
 * Builds the table from an ACP schema document. The kind of each annotated `$def` comes from
 * where the schema's own JSON-RPC envelopes use it: referenced under an envelope's `params`
 * with an `id` member → request; under `params` without `id` → notification; under `result`
 * → response. Names are not trusted (`MessageMcpRequest` and `MessageMcpNotification` share
 * a method), so a `$def` the envelopes never use falls back to its name's suffix.
 */
export function buildMethodTable(schema: Record<string, unknown>): AcpMethodTable {
  return new AcpMethodTable(methodsOf(schema));
}

/** The methods of an ACP schema document, as buildMethodTable() tables them. */
export function methodsOf(schema: Record<string, unknown>): Iterable<AcpMethod> {
  const defs = (schema.$defs ?? {}) as Record<string, Record<string, unknown>>;
  const kinds = envelopeKinds(schema, defs);
  const methods = new Map<string, AcpMethod>();
  for (const [name, def] of Object.entries(defs)) {
    const method = def['x-method'];
    const side = def['x-side'];
    if (typeof method !== 'string' || !isSide(side)) continue;
    const kind = kinds.get(name) ?? kindFromName(name);
    if (!kind) continue;
    const entry = methods.get(method) ?? { method };
    entry[kind] = { def: name, side };
    methods.set(method, entry);
  }
  return methods.values();
}

function envelopeKinds(schema: unknown, defs: Record<string, Record<string, unknown>>): Map<string, AcpMessageKind> {
  const kinds = new Map<string, AcpMessageKind>();
  const note = (node: unknown, kind: AcpMessageKind) => {
    for (const name of localRefs(node)) if (typeof defs[name]?.['x-method'] === 'string') kinds.set(name, kind);
  };
  walk(schema, (node) => {
    const props = node.properties;
    if (props === null || typeof props !== 'object') return;
    const p = props as Record<string, unknown>;
    if ('params' in p) note(p.params, 'id' in p ? 'request' : 'notification');
    if ('result' in p) note(p.result, 'response');
  });
  return kinds;
}

/** Names of `#/$defs/<name>` targets referenced anywhere inside `node`, without following them. */
function localRefs(node: unknown): string[] {
  const names: string[] = [];
  walk(node, (n) => {
    if (typeof n.$ref === 'string' && n.$ref.startsWith('#/$defs/')) names.push(decodeURIComponent(n.$ref.slice('#/$defs/'.length)));
  });
  return names;
}

function walk(node: unknown, visit: (n: Record<string, unknown>) => void): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const child of node) walk(child, visit);
    return;
  }
  const record = node as Record<string, unknown>;
  visit(record);
  for (const [key, child] of Object.entries(record)) if (!DATA_KEYWORDS.has(key)) walk(child, visit);
}

function kindFromName(name: string): AcpMessageKind | undefined {
  if (name.endsWith('Request')) return 'request';
  if (name.endsWith('Response')) return 'response';
  if (name.endsWith('Notification')) return 'notification';
  return undefined;
}

function isSide(value: unknown): value is AcpSide {
  return value === 'agent' || value === 'client' || value === 'both' || value === 'protocol';
}
