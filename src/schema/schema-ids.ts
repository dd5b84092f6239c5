// The $ids the protocols address their schemas by, apart from the registry so that naming a schema
// does not load the validator compiler.

/** The $id we address the ACP schema by; the file shipped in @agentclientprotocol/sdk has none. */
export const ACP_SCHEMA_ID = 'https://agentclientprotocol.com/schema/sdk/schema.json';
export const AGUI_SCHEMA_ID = 'https://ag-ui.com/spec/draft/schema.json';
export const PI_SESSION_API_ID = 'https://a.skh.am/pi-daemon/session-api.schema.json';
export const PI_NDJSON_V1_ID = 'https://a.skh.am/pi-daemon/protocol.schema.json';
export const PI_NDJSON_V2_ID = 'https://a.skh.am/pi-daemon/protocol-v2.schema.json';
