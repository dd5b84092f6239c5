import { formatPointer } from '../../core/field-specs.js';
import { isJsonObject } from '../../core/json.js';

/** The schema extension that names a tool argument's header: `Mcp-Param-{name}`. */
export const HEADER_ANNOTATION = 'x-mcp-header';

/** An argument a tool mirrors into a header: the header's name part, and the chain of `properties` keys to the argument. */
export interface HeaderAnnotation {
  name: string;
  path: readonly string[];
}

/**
 * What a tool's inputSchema says of its mirrored arguments: their annotations; or that an
 * annotation breaks the constraints, which makes the tool definition invalid (its client excludes
 * the tool); or `unchecked` when the schema is too large or deep to walk.
 */
export type ToolHeaderAnnotations =
  | { kind: 'valid'; annotations: readonly HeaderAnnotation[] }
  | { kind: 'invalid'; pointer: string; reason: string }
  | { kind: 'unchecked' };

/** RFC 9110's token (`1*tchar`): what a header name may be made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** The types an annotated argument may have (`number` is not one); `null` for an optional one. */
const PRIMITIVE = new Set(['string', 'integer', 'boolean', 'null']);
const MAX_NODES = 4_000;
const MAX_DEPTH = 64;

/** Keywords whose value is a schema, or a map or list of schemas: where an annotation elsewhere may hide. */
const SCHEMA_KEYWORDS = new Set(['items', 'contains', 'additionalProperties', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties', 'not', 'if', 'then', 'else']);
const SCHEMA_LISTS = new Set(['prefixItems', 'allOf', 'anyOf', 'oneOf']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/**
 * The `x-mcp-header` annotations of a tool's inputSchema, by the constraints of MCP 2026-07-28's
 * Streamable HTTP transport page ("Schema Extension"): each a non-empty token, unique among the
 * schema's whatever their case, on a property of type string, integer or boolean, statically
 * reachable from the root by `properties` keys alone (not through `items`, composition,
 * conditionals or `$ref`). Only schema keywords are walked: an `x-mcp-header` key in a `default`
 * or `examples` value is data.
 */
export function headerAnnotationsOf(inputSchema: unknown): ToolHeaderAnnotations {
  const annotations: HeaderAnnotation[] = [];
  const seen = new Set<string>();
  let nodes = 0;
  let found: ToolHeaderAnnotations | undefined;

  const visit = (node: unknown, pointer: string, path: readonly string[] | undefined, depth: number): void => {
    if (found !== undefined || !isJsonObject(node)) return;
    if (++nodes > MAX_NODES || depth > MAX_DEPTH) {
      found = { kind: 'unchecked' };
      return;
    }
    if (HEADER_ANNOTATION in node) {
      const why = annotationProblem(node, path, seen);
      if (why !== undefined) {
        found = { kind: 'invalid', pointer: `${pointer}/${HEADER_ANNOTATION}`, reason: why };
        return;
      }
      const name = node[HEADER_ANNOTATION] as string;
      seen.add(name.toLowerCase());
      annotations.push({ name, path: path! });
    }
    for (const [keyword, child] of Object.entries(node)) {
      const at = pointer + formatPointer([keyword]);
      if (SCHEMA_KEYWORDS.has(keyword)) visit(child, at, undefined, depth + 1);
      else if (SCHEMA_LISTS.has(keyword) && Array.isArray(child)) child.forEach((item, i) => visit(item, `${at}/${i}`, undefined, depth + 1));
      else if (SCHEMA_MAPS.has(keyword) && isJsonObject(child)) {
        for (const [key, schema] of Object.entries(child)) {
          const reachable = keyword === 'properties' && path !== undefined ? [...path, key] : undefined;
          visit(schema, at + formatPointer([key]), reachable, depth + 1);
        }
      }
    }
  };
  visit(inputSchema, '', [], 0);
  return found ?? { kind: 'valid', annotations };
}

/** Why an annotation on `node` (reached by `path` of properties keys, or not) breaks a constraint, if it does. */
function annotationProblem(node: Readonly<Record<string, unknown>>, path: readonly string[] | undefined, seen: ReadonlySet<string>): string | undefined {
  const name = node[HEADER_ANNOTATION];
  if (path === undefined || path.length === 0) return `${HEADER_ANNOTATION} is only allowed on a property reached from the root by properties keys alone`;
  if (typeof name !== 'string' || name === '') return `${HEADER_ANNOTATION} must be a non-empty string`;
  if (!TOKEN.test(name)) return `${HEADER_ANNOTATION} '${name}' is not an HTTP field-name token`;
  if (seen.has(name.toLowerCase())) return `${HEADER_ANNOTATION} '${name}' is used twice in the schema (names are compared ignoring case)`;
  const types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
  const other = types.find((t) => typeof t !== 'string' || !PRIMITIVE.has(t));
  if (other !== undefined) return `${HEADER_ANNOTATION} '${name}' is on a property of type ${JSON.stringify(other)}; only string, integer and boolean may be mirrored`;
  return undefined;
}
