import type { SchemaSpec } from '../../schema/schema-sources.js';
import { PI_DAEMON_SCHEMAS } from '../pi-rest/schemas.js';

export const PI_NDJSON_V1_ID = 'https://a.skh.am/pi-daemon/protocol.schema.json';
export const PI_NDJSON_V2_ID = 'https://a.skh.am/pi-daemon/protocol-v2.schema.json';

/**
 * The socket protocol's two versions (protocol.schema.json and protocol-v2.schema.json): each
 * message is judged by the one its `protocolVersion` names (ndjson-schema.ts). They are shipped
 * with the daemon's other schemas, which they refer to.
 */
export const UNIX_NDJSON_SCHEMAS: readonly SchemaSpec[] = PI_DAEMON_SCHEMAS;
