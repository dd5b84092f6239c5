import type { SchemaSpec } from '../../schema/schema-sources.js';

/** The `$id` of the shipped subset of OpenAI's API description (scripts/derive-openai-schemas.mjs). */
export const OPENAI_SCHEMA_ID = 'https://agent-proxy.dev/schemas/openai-api-2.3.0.schema.json';

/**
 * The requests, answers and stream messages of the routes this protocol knows, derived from
 * openai/openai-openapi (MIT) by a script, never by hand (schemas/README.md). The project's own
 * choice of document: an extra one with the same `$id` does not replace it.
 */
export const OPENAI_SCHEMAS: readonly SchemaSpec[] = [{ from: 'schemas', file: 'openai.schema.json' }];
