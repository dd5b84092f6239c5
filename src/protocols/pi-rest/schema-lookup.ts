import { error, type Finding } from '../../core/finding.js';
import { PI_SESSION_API_ID } from './schemas.js';
import type { SchemaCheck, SchemaRegistry } from '../../schema/schema-registry.js';
import { prefixFindings } from './finding-paths.js';
import { isJsonObject } from '../../core/json.js';
import { reconcileRequestCheck } from './reconcile-request.js';
import type { SchemaSpec } from './route-table.js';

/** Where the OpenAPI document keeps the inline schemas that have no `$def` of their own. */
export const OPENAPI_DOC = 'session-api.openapi.json';

const cache = new WeakMap<SchemaRegistry, Map<string, SchemaCheck>>();

function keyOf(spec: SchemaSpec): string {
  switch (spec.kind) {
    case 'def':
      return `def ${spec.doc}#${spec.name}`;
    case 'envelope':
      return `envelope ${spec.data.doc}#${spec.data.name}`;
    default:
      return spec.kind;
  }
}

/** The validator for a route's body spec, built once per registry. */
export function schemaCheckFor(registry: SchemaRegistry, spec: SchemaSpec): SchemaCheck {
  let perRegistry = cache.get(registry);
  if (!perRegistry) {
    perRegistry = new Map();
    cache.set(registry, perRegistry);
  }
  const key = keyOf(spec);
  const cached = perRegistry.get(key);
  if (cached) return cached;
  const built = build(registry, spec);
  perRegistry.set(key, built);
  return built;
}

/** Shorthand for a `$def` of the session API document. */
export function sessionApiCheck(registry: SchemaRegistry, name: string): SchemaCheck {
  return schemaCheckFor(registry, { kind: 'def', doc: PI_SESSION_API_ID, name });
}

function build(registry: SchemaRegistry, spec: SchemaSpec): SchemaCheck {
  switch (spec.kind) {
    case 'def':
      return registry.def(spec.doc, spec.name);
    case 'envelope':
      return envelopeCheck(registry, spec.data.doc, spec.data.name);
    case 'reconcile':
      return reconcileRequestCheck(registry, `${OPENAPI_DOC}#/paths/~1ticket~1{ticketId}~1reconcile/post/requestBody`);
    case 'any-object':
      return {
        ok: true,
        ref: `${OPENAPI_DOC}#/paths/~1schedule~1{scheduleId}`,
        validate: (value: unknown): Finding[] => (isJsonObject(value) ? [] : [error('schema', '', '(root): must be object')]),
      };
  }
}

/**
 * `allOf: [apiEnvelopeBase, {required: [data], properties: {ok: {const: true}, data: {$ref}}}]`, as the
 * OpenAPI writes it inline for the dashboard draft routes: the same check in three parts.
 */
function envelopeCheck(registry: SchemaRegistry, doc: string, name: string): SchemaCheck {
  const base = registry.def(PI_SESSION_API_ID, 'apiEnvelopeBase');
  const data = registry.def(doc, name);
  if (!data.ok) return data;
  if (!base.ok) return base;
  return {
    ok: true,
    ref: data.ref,
    validate(value: unknown): Finding[] {
      const findings = base.validate(value);
      if (!isJsonObject(value)) return findings;
      if ('ok' in value && value.ok !== true) findings.push(error('schema', '/ok', '/ok: must be true'));
      if (!('data' in value)) findings.push(error('schema', '', "(root): missing required property 'data'"));
      else findings.push(...prefixFindings(data.validate(value.data), '/data'));
      return findings;
    },
  };
}
