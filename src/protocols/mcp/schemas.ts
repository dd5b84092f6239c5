import type { SchemaSpec } from '../../schema/schema-sources.js';

/**
 * The MCP versions whose schema ships (schemas/mcp-<version>.schema.json, byte for byte from the
 * specification repository), oldest first. The first two are draft-07 (`definitions`), the others
 * draft 2020-12 (`$defs`).
 */
export const MCP_VERSIONS = ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;
export type McpVersion = (typeof MCP_VERSIONS)[number];

/** What a Streamable HTTP request without `MCP-Protocol-Version` speaks (the transport's rule). */
export const MCP_HTTP_DEFAULT_VERSION: McpVersion = '2025-03-26';

/** The newest version negotiated by initialize (2026-07-28 has none: its version rides in `_meta`). */
export const MCP_LATEST_LEGACY_VERSION: McpVersion = '2025-11-25';

/** The versions without initialize, sessions or server-to-client requests. */
export const MCP_MODERN_VERSIONS: ReadonlySet<string> = new Set(['2026-07-28']);

/** The `_meta` key a modern request names its version by. */
export const MCP_META_VERSION = 'io.modelcontextprotocol/protocolVersion';

/** The `$id` a version's schema is addressed by: the files have none. */
export function mcpSchemaId(version: McpVersion): string {
  return `https://modelcontextprotocol.io/schema/${version}/schema.json`;
}

export function isMcpVersion(value: unknown): value is McpVersion {
  return typeof value === 'string' && (MCP_VERSIONS as readonly string[]).includes(value);
}

/** Where a version's schema keeps its definitions. */
export function mcpDefsKey(version: McpVersion): '$defs' | 'definitions' {
  return version === '2025-03-26' || version === '2025-06-18' ? 'definitions' : '$defs';
}

/** The reference of one definition of a version's schema: `<$id>#/$defs/CallToolRequest`. */
export function mcpDefRef(version: McpVersion, name: string): string {
  return `${mcpSchemaId(version)}#/${mcpDefsKey(version)}/${name}`;
}

/** The four schema documents, each file addressed by the `$id` above. */
export const MCP_SCHEMAS: readonly SchemaSpec[] = MCP_VERSIONS.map((version) => ({ from: 'schemas', file: `mcp-${version}.schema.json`, id: mcpSchemaId(version) }));
