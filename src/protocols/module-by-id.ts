import { aguiProtocol } from './agui/index.js';
import { piRestProtocol } from './pi-rest/index.js';
import { piDaemonRpcProtocol } from './pi-daemon-rpc/index.js';
import { piRpcProtocol } from './pi-rpc/index.js';
import { acpProtocol } from './acp/index.js';
import { mcpProtocol } from './mcp/index.js';
import { unixNdjsonProtocol } from './unix-ndjson/index.js';
import { jsonRpcProtocol } from './json-rpc/index.js';
import { openAiProtocol } from './openai/index.js';
import { anthropicProtocol } from './anthropic/index.js';
import { factsOf, type ProtocolId } from './catalog.js';
import type { ProtocolModule } from './protocol.js';

/**
 * The full module (checker and all) of each protocol of the catalog, reached only through a function
 * called when it is needed. The type makes it complete: a protocol added to catalog.ts and not here
 * does not compile. Nothing here touches a module when this file loads, so the CLI's bundle requires
 * each protocol's chunk at its first use instead (scripts/bundle-cli.mjs, `protocolModulesOnFirstUse`):
 * the recording worker then loads the protocols its traffic is claimed by, not all ten. Unbundled,
 * the imports above load them all, as any ES module's do.
 */
const MODULE_OF: { readonly [Id in ProtocolId]: () => ProtocolModule<Id> } = {
  agui: () => aguiProtocol,
  'pi-rest': () => piRestProtocol,
  'pi-daemon-rpc': () => piDaemonRpcProtocol,
  'pi-rpc': () => piRpcProtocol,
  acp: () => acpProtocol,
  mcp: () => mcpProtocol,
  'unix-ndjson': () => unixNdjsonProtocol,
  'json-rpc': () => jsonRpcProtocol,
  openai: () => openAiProtocol,
  anthropic: () => anthropicProtocol,
};

/** The module of `id`; ProtocolUnknownError when none has it (an id that bypassed the type: a JS caller, a stored row). */
export function moduleById(id: string): ProtocolModule<ProtocolId> {
  return MODULE_OF[factsOf(id).id]();
}
