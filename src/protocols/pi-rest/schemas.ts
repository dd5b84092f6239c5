import type { SchemaSpec } from '../../schema/schema-sources.js';

export const PI_SESSION_API_ID = 'https://a.skh.am/pi-daemon/session-api.schema.json';

/**
 * The Pi daemon session API, the project's own schema, and the pi-daemon v0.3.0 schemas it refers
 * to, shipped so that its messages are judged without --schemas (schemas/README.md): an extra
 * document with the same $id replaces those. Pi RPC, the framed RPC and ACP over the daemon refer
 * to the session API too, and declare it again (it is loaded once).
 */
export const PI_DAEMON_SCHEMAS: readonly SchemaSpec[] = [
  { from: 'schemas', file: 'pi-daemon-session-api.schema.json' },
  ...[
    'extension-view.schema.json',
    'dashboard-session-draft.schema.json',
    'dashboard-api.schema.json',
    'schedule.schema.json',
    'protocol.schema.json',
    'tool-adapter.schema.json',
    'protocol-v2.schema.json',
  ].map((file): SchemaSpec => ({ from: 'schemas', file, replaceable: true })),
];
