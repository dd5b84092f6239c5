import type { Finding } from '../../core/finding.js';
import type { SchemaCheck, SchemaRegistry } from '../../schema/schema-registry.js';
import { buildSchemaTable, type McpSchemaTable } from './schema-table.js';
import { isMcpVersion, mcpDefRef, mcpSchemaId, type McpVersion } from './schemas.js';

/** Each registry's tables, built from the documents it loaded, once per version. */
const TABLES = new WeakMap<SchemaRegistry, Map<McpVersion, McpSchemaTable | undefined>>();

/** The table of `version`'s schema as `registry` loaded it; undefined when it did not load it. */
export function schemaTableOf(registry: SchemaRegistry, version: McpVersion): McpSchemaTable | undefined {
  let tables = TABLES.get(registry);
  if (!tables) TABLES.set(registry, (tables = new Map()));
  if (!tables.has(version)) {
    const document = registry.documents.get(mcpSchemaId(version));
    tables.set(version, document ? buildSchemaTable(version, document.json) : undefined);
  }
  return tables.get(version);
}

/** Why a message of `version` cannot be judged by a schema, or undefined when it can. */
export function noSchemaReason(registry: SchemaRegistry, version: string | undefined): string | undefined {
  if (version === undefined) return 'no MCP version negotiated yet (the InitializeResult names it)';
  if (!isMcpVersion(version)) return `MCP ${version} has no shipped schema (agent-proxy ships 2025-03-26, 2025-06-18, 2025-11-25 and 2026-07-28)`;
  return schemaTableOf(registry, version) === undefined ? `the schema of MCP ${version} (${mcpSchemaId(version)}) is not loaded` : undefined;
}

/**
 * The schema checks of one message, each by the definition of its version for its method and
 * direction (never the root's union): findings merged (the envelope and the method's definition
 * can report one problem twice), the most specific reference that judged it.
 */
export class McpSchemaPass {
  readonly findings: Finding[] = [];
  readonly reasons: string[] = [];
  ref?: string;
  private readonly seen = new Set<string>();

  constructor(
    private readonly registry: SchemaRegistry,
    readonly version: McpVersion,
  ) {}

  /** Checks `value` (found at pointer `at` of the message) against definition `def`. */
  run(def: string, value: unknown, at = ''): void {
    const check: SchemaCheck = this.registry.check(mcpDefRef(this.version, def));
    if (!check.ok) {
      if (!this.reasons.includes(check.reason)) this.reasons.push(check.reason);
      return;
    }
    this.ref = check.ref;
    for (const found of check.validate(value)) {
      const f = at === '' ? found : atMember(found, at);
      const key = `${f.pointer}\u0000${f.message}`;
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.findings.push(f);
    }
  }

  get ran(): boolean {
    return this.ref !== undefined;
  }
}

/** A finding about a member (`result`) with its pointer, and the pointer its message starts with, into the whole message. */
function atMember(finding: Finding, at: string): Finding {
  const pointer = at + finding.pointer;
  const own = `${finding.pointer || '(root)'}: `;
  const text = finding.message.startsWith(own) ? finding.message.slice(own.length) : finding.message;
  return { ...finding, pointer, message: `${pointer}: ${text}` };
}
