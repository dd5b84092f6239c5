import { AGUI_SCHEMA_ID } from './schemas.js';
import type { SchemaCheck, SchemaRegistry } from '../../schema/schema-registry.js';
import { EVENT_TYPES, defNameOf, type EventType } from './event-types.js';

/** The schema checks one registry offers AG-UI: one per event type, plus the input and the type enum. */
export interface AguiSchemas {
  /** Indexed by event type; each resolves to `<$id>#<Type>Event`, never to the root `Event` oneOf. */
  readonly events: ReadonlyMap<string, SchemaCheck>;
  readonly runAgentInput: SchemaCheck;
  readonly eventType: SchemaCheck;
}

/** `<$id>#<anchor>`: the form verdicts record as their schemaRef. */
export function aguiRef(anchor: string): string {
  return `${AGUI_SCHEMA_ID}#${anchor}`;
}

const byRegistry = new WeakMap<SchemaRegistry, AguiSchemas>();

/**
 * Resolves every AG-UI schema check of a registry once. Dispatching on `type` to the per-event anchor
 * is what keeps validation fast and its messages about the real failure (notes §2.9: the root
 * union reports 167 errors for one bad outcome and is ~23× slower).
 */
export function aguiSchemas(registry: SchemaRegistry): AguiSchemas {
  const cached = byRegistry.get(registry);
  if (cached) return cached;
  const events = new Map<string, SchemaCheck>();
  for (const type of EVENT_TYPES) events.set(type, registry.check(aguiRef(defNameOf(type as EventType))));
  const schemas: AguiSchemas = {
    events,
    runAgentInput: registry.check(aguiRef('RunAgentInput')),
    eventType: registry.check(aguiRef('EventType')),
  };
  byRegistry.set(registry, schemas);
  return schemas;
}
