import { PI_SESSION_API_ID } from './schemas.js';
import type { SchemaRegistry } from '../../schema/schema-registry.js';
import { isEnvelope } from './envelope.js';
import { isJsonObject } from '../../core/json.js';
import type { SchemaSpec } from './route-table.js';

/** Success envelopes whose `data` has a closed shape of its own: envelope `$def` → `data` `$def`. */
const ENVELOPE_DATA: ReadonlyArray<readonly [string, string]> = [
  ['ticketEnvelope', 'ticketResource'],
  ['sessionListEnvelope', 'sessionListPage'],
  ['sessionEnvelope', 'sessionResource'],
  ['blobTransferEnvelope', 'blobTransferResource'],
  ['sessionUploadEnvelope', 'sessionUploadResource'],
  ['capabilitiesEnvelope', 'capabilities'],
  ['scheduleStatusEnvelope', 'scheduleStatus'],
  ['scheduleListEnvelope', 'scheduleList'],
];

/** Request bodies with a closed shape. */
const REQUEST_DEFS = ['sessionCreateRequest', 'sessionUpdateRequest', 'blobReservationRequest', 'blobMaterializationRequest'];

/** The `$def`s whose bodies carry a write-only `spec.env`. */
export const ENV_CARRYING_DEFS: ReadonlySet<string> = new Set(['sessionCreateRequest', 'sessionUpdateRequest']);

interface Shape {
  required: string[];
  /** Undefined when the `$def` allows other properties. */
  allowed?: Set<string>;
}

const shapes = new WeakMap<SchemaRegistry, Map<string, Shape | undefined>>();

/** Top-level `required` and closed `properties` of a session API `$def`, read from the loaded document. */
function shapeOf(registry: SchemaRegistry, name: string): Shape | undefined {
  let perRegistry = shapes.get(registry);
  if (!perRegistry) {
    perRegistry = new Map();
    shapes.set(registry, perRegistry);
  }
  if (perRegistry.has(name)) return perRegistry.get(name);
  const defs = registry.documents.get(PI_SESSION_API_ID)?.json.$defs;
  const def = isJsonObject(defs) ? defs[name] : undefined;
  let shape: Shape | undefined;
  if (isJsonObject(def) && Array.isArray(def.required)) {
    const props = isJsonObject(def.properties) ? Object.keys(def.properties) : [];
    shape = {
      required: def.required.filter((r): r is string => typeof r === 'string'),
      allowed: def.additionalProperties === false ? new Set(props) : undefined,
    };
  }
  perRegistry.set(name, shape);
  return shape;
}

function fits(value: Record<string, unknown>, shape: Shape | undefined): boolean {
  if (!shape) return false;
  if (!shape.required.every((k) => k in value)) return false;
  return shape.allowed === undefined || Object.keys(value).every((k) => shape.allowed!.has(k));
}

/**
 * For bodies that arrive without their HTTP route (`validate` on a file of bodies): the one session API
 * `$def` whose closed top-level shape (all required properties present, no others) the body fits.
 * Undefined when none or several fit; the caller then leaves the body unchecked. Error envelopes need
 * no guessing: every error status of every route carries `apiErrorEnvelope`.
 */
export function inferSchemaByShape(registry: SchemaRegistry, value: unknown): SchemaSpec | undefined {
  const name = isEnvelope(value) ? envelopeDef(registry, value) : requestDef(registry, value);
  return name === undefined ? undefined : { kind: 'def', doc: PI_SESSION_API_ID, name };
}

function envelopeDef(registry: SchemaRegistry, envelope: { ok: boolean; data?: unknown }): string | undefined {
  if (!envelope.ok) return 'apiErrorEnvelope';
  const data = envelope.data;
  if (!isJsonObject(data)) return undefined;
  const fitting = ENVELOPE_DATA.filter(([, dataDef]) => fits(data, shapeOf(registry, dataDef)));
  return fitting.length === 1 ? fitting[0][0] : undefined;
}

function requestDef(registry: SchemaRegistry, value: unknown): string | undefined {
  if (!isJsonObject(value)) return undefined;
  const fitting = REQUEST_DEFS.filter((name) => fits(value, shapeOf(registry, name)));
  return fitting.length === 1 ? fitting[0] : undefined;
}
