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
import { CATALOG, factsOf, mostSure, type ProtocolId } from './catalog.js';
import type { ProtocolViews } from './inspector-views.js';
import type { ChannelHint, ProtocolModule } from './protocol.js';

/**
 * The full module (checker and all) of each protocol of the catalog, by id. The type makes it
 * complete: a protocol added to catalog.ts and not here does not compile. Apart from catalog.ts so
 * that what needs only the facts (a replay) does not load the checkers.
 */
const MODULES: { readonly [Id in ProtocolId]: ProtocolModule<Id> } = {
  agui: aguiProtocol,
  'pi-rest': piRestProtocol,
  'pi-daemon-rpc': piDaemonRpcProtocol,
  'pi-rpc': piRpcProtocol,
  acp: acpProtocol,
  mcp: mcpProtocol,
  'unix-ndjson': unixNdjsonProtocol,
  'json-rpc': jsonRpcProtocol,
  openai: openAiProtocol,
  anthropic: anthropicProtocol,
};

/** Every protocol the proxy understands, in the catalog's order (the order ties are broken). */
export const PROTOCOLS: readonly ProtocolModule<ProtocolId>[] = CATALOG.map((facts) => MODULES[facts.id]);

/** The module of `id`; ProtocolUnknownError when none has it (an id that bypassed the type: a JS caller, a stored row). */
export function protocolById(id: string): ProtocolModule<ProtocolId> {
  return MODULES[factsOf(id).id];
}

/** The views the protocol of an exchange declares; undefined for none, or an id this build does not know (a newer recording's). */
export function viewsOf(protocol: string | null): ProtocolViews | undefined {
  return protocol === null ? undefined : PROTOCOLS.find((p) => p.id === protocol)?.views;
}

/** The module most sure that a channel is its own, or undefined when none claims it. */
export function classifyChannel(hint: ChannelHint): ProtocolModule<ProtocolId> | undefined {
  return mostSure(PROTOCOLS, (p) => p.classify(hint));
}

/** The module most sure that a lone message is its own (for files and stdio without a hint). */
export function sniffMessage(value: unknown): ProtocolModule<ProtocolId> | undefined {
  return mostSure(PROTOCOLS, (p) => p.sniff(value));
}
