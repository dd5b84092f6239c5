import type { PackageSchemaSpec, SchemaSpec } from '../../schema/schema-sources.js';
import { PI_DAEMON_SCHEMAS } from '../pi-rest/schemas.js';

/** The $id we address the ACP schema by; the file shipped in @agentclientprotocol/sdk has none. */
export const ACP_SCHEMA_ID = 'https://agentclientprotocol.com/schema/sdk/schema.json';

/** The ACP schema inside @agentclientprotocol/sdk (the version pi-daemon pins): its main entry lives in dist/, beside schema/. */
export const ACP_SCHEMA_FILE: PackageSchemaSpec = { from: 'package', package: '@agentclientprotocol/sdk', path: 'schema/schema.json', id: ACP_SCHEMA_ID };

/** ACP's own schema, and the daemon's for ACP over its `/apc` route. */
export const ACP_SCHEMAS: readonly SchemaSpec[] = [...PI_DAEMON_SCHEMAS, ACP_SCHEMA_FILE];
