// Every protocol's full module at once, for what judges or shows any protocol (validate's package API,
// the inspector's views, the contract tests); module-by-id.ts reaches one at a time.
import { CATALOG, mostSure, type ProtocolId } from './catalog.js';
import { moduleById } from './module-by-id.js';
import type { ProtocolViews } from './inspector-views.js';
import type { ChannelHint, ProtocolModule } from './protocol.js';

/** Every protocol the proxy understands, in the catalog's order (the order ties are broken). */
export const PROTOCOLS: readonly ProtocolModule<ProtocolId>[] = CATALOG.map((facts) => moduleById(facts.id));

/** The module of `id`; ProtocolUnknownError when none has it (an id that bypassed the type: a JS caller, a stored row). */
export function protocolById(id: string): ProtocolModule<ProtocolId> {
  return moduleById(id);
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
