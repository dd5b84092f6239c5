import type { Sender } from '../../core/message.js';
import { isJsonObject } from '../../core/json.js';
import { mcpDefsKey, type McpVersion } from './schemas.js';

/** One method of a version's schema: the definitions a message of it is judged by, and who may send it. */
export interface McpMethod {
  readonly method: string;
  /** The request's definition (`CallToolRequest`) and the sides its schema lets send it. */
  request?: { def: string; senders: Set<Sender> };
  /** The result's definition (`CallToolResult`; `EmptyResult` when the method has none of its own). */
  result?: string;
  /**
   * The whole response's definition, where the version has one per method (2026-07-28's
   * `CallToolResultResponse`: its result is the method's or an InputRequiredResult).
   */
  response?: string;
  notification?: { def: string; senders: Set<Sender> };
}

/** The envelope definitions of a version: their names changed in 2025-11-25. */
export interface McpEnvelopeDefs {
  request: string;
  notification: string;
  result: string;
  error: string;
}

/** The per-method definitions of one MCP schema document, read from the document itself. */
export interface McpSchemaTable {
  readonly version: McpVersion;
  readonly methods: ReadonlyMap<string, McpMethod>;
  readonly envelope: McpEnvelopeDefs;
  /** Whether the document has this definition (CreateTaskResult only from 2025-11-25). */
  has(def: string): boolean;
}

const UNIONS: ReadonlyArray<[string, Sender, 'request' | 'notification']> = [
  ['ClientRequest', 'client', 'request'],
  ['ServerRequest', 'server', 'request'],
  ['ClientNotification', 'client', 'notification'],
  ['ServerNotification', 'server', 'notification'],
];

/**
 * Builds the table of a version's schema. A definition whose `method` is a `const` is a request or a
 * notification by its name's suffix (`CallToolRequest`, `ProgressNotification`); its result is the
 * definition named like it (`CallToolResult`), or `EmptyResult`. Who may send it comes from the
 * unions the schema draws (`ClientRequest`, `ServerNotification`, ...). The root's anyOf is never
 * used: it accepts any method with any params.
 */
export function buildSchemaTable(version: McpVersion, document: Record<string, unknown>): McpSchemaTable {
  const raw = document[mcpDefsKey(version)];
  const defs = (isJsonObject(raw) ? raw : {}) as Record<string, unknown>;
  const methods = new Map<string, McpMethod>();
  const byDef = new Map<string, { method: string; kind: 'request' | 'notification' }>();
  for (const [name, def] of Object.entries(defs)) {
    const method = methodConst(def);
    // The unions (ClientNotification is a single definition in 2026-07-28) name no method of their own.
    if (method === undefined || UNIONS.some(([union]) => union === name)) continue;
    const kind = name.endsWith('Request') ? 'request' : name.endsWith('Notification') ? 'notification' : undefined;
    if (kind === undefined) continue;
    const entry = methods.get(method) ?? { method };
    entry[kind] = { def: name, senders: new Set() };
    if (kind === 'request') {
      const own = `${name.slice(0, -'Request'.length)}Result`;
      entry.result = own in defs ? own : 'EmptyResult' in defs ? 'EmptyResult' : undefined;
      if (`${own}Response` in defs) entry.response = `${own}Response`;
    }
    methods.set(method, entry);
    byDef.set(name, { method, kind });
  }
  for (const [union, sender, kind] of UNIONS) {
    // A union of one message (2026-07-28's ClientNotification) is that message's definition itself.
    const single = methodConst(defs[union]);
    if (single !== undefined) methods.get(single)?.[kind]?.senders.add(sender);
    for (const name of unionMembers(defs[union])) {
      const member = byDef.get(name);
      const entry = member && member.kind === kind ? methods.get(member.method)?.[kind] : undefined;
      entry?.senders.add(sender);
    }
  }
  const modern = 'JSONRPCErrorResponse' in defs;
  return {
    version,
    methods,
    envelope: {
      request: 'JSONRPCRequest',
      notification: 'JSONRPCNotification',
      result: modern ? 'JSONRPCResultResponse' : 'JSONRPCResponse',
      error: modern ? 'JSONRPCErrorResponse' : 'JSONRPCError',
    },
    has: (def) => def in defs,
  };
}

function methodConst(def: unknown): string | undefined {
  if (!isJsonObject(def) || !isJsonObject(def.properties) || !isJsonObject(def.properties.method)) return undefined;
  const value = def.properties.method.const;
  return typeof value === 'string' ? value : undefined;
}

/** The definitions a union lists (`anyOf` of `$ref`s). */
function unionMembers(def: unknown): string[] {
  if (!isJsonObject(def) || !Array.isArray(def.anyOf)) return [];
  return def.anyOf.flatMap((branch) => {
    const ref = isJsonObject(branch) ? branch.$ref : undefined;
    return typeof ref === 'string' ? [decodeURIComponent(ref.slice(ref.lastIndexOf('/') + 1))] : [];
  });
}
