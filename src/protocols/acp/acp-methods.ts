import { readPackagedAcpSchema } from './acp-schema-file.js';
import { AcpMethodTable, methodsOf } from './method-table.js';

/**
 * The ACP method table, built once, when first asked (reading the schema costs a command that sees
 * no ACP), from the schema in @agentclientprotocol/sdk — the same document the schema registry
 * validates with.
 * Empty when the package is missing; every method is then "unknown" and checked by the
 * JSON-RPC envelope alone.
 */
export const ACP_METHODS: AcpMethodTable = new AcpMethodTable(() => methodsOf(readPackagedAcpSchema() ?? {}));
