import type { SchemaSpec } from '../../schema/schema-sources.js';

export const AGUI_SCHEMA_ID = 'https://ag-ui.com/spec/draft/schema.json';

/** The AG-UI events and RunAgentInput, the project's own schema (schemas/README.md). */
export const AGUI_SCHEMAS: readonly SchemaSpec[] = [{ from: 'schemas', file: 'ag-ui.schema.json' }];
