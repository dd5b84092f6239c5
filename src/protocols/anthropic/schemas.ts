import type { SchemaSpec } from '../../schema/schema-sources.js';

/** The `$id` of the Messages API schema written here from Anthropic's documented types (no schema is published). */
export const ANTHROPIC_SCHEMA_ID = 'https://agent-proxy.dev/schemas/anthropic-messages.schema.json';

/**
 * The requests, answers and stream events of the Messages API, each definition with a `$comment`
 * naming the documentation page it is written from (schemas/README.md). The project's own document:
 * an extra one with the same `$id` does not replace it.
 */
export const ANTHROPIC_SCHEMAS: readonly SchemaSpec[] = [{ from: 'schemas', file: 'anthropic-messages.schema.json' }];
