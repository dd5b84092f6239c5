import { ProtocolUnknownError } from '../core/errors.js';
import { PROTOCOL_IDS, type ChannelHint, type ProtocolId, type ProtocolModule } from './protocol.js';
import { aguiProtocol } from './agui/index.js';
import { piRestProtocol } from './pi-rest/index.js';
import { piDaemonRpcProtocol } from './pi-daemon-rpc/index.js';
import { piRpcProtocol } from './pi-rpc/index.js';
import { acpProtocol } from './acp/index.js';
import { unixNdjsonProtocol } from './unix-ndjson/index.js';
import { jsonRpcProtocol } from './json-rpc/index.js';
import { mostSure } from './replay-catalog.js';

/** Every protocol the proxy understands, in the order ties are broken (the same as replay-catalog.ts). */
export const PROTOCOLS: readonly ProtocolModule[] = [
  aguiProtocol,
  piRestProtocol,
  piDaemonRpcProtocol,
  piRpcProtocol,
  acpProtocol,
  unixNdjsonProtocol,
  jsonRpcProtocol,
];

/** The module of `id`; ProtocolUnknownError when none has it (an id that bypassed the type: a JS caller, a stored row). */
export function protocolById(id: ProtocolId): ProtocolModule {
  const found = PROTOCOLS.find((p) => p.id === id);
  if (!found) throw new ProtocolUnknownError(`unknown protocol '${id}'; expected one of ${PROTOCOL_IDS.join(', ')}`);
  return found;
}

/** The module most sure that a channel is its own, or undefined when none claims it. */
export function classifyChannel(hint: ChannelHint): ProtocolModule | undefined {
  return mostSure(PROTOCOLS.map((p) => [p, p.classify(hint)] as const));
}

/** The module most sure that a lone message is its own (for files and stdio without a hint). */
export function sniffMessage(value: unknown): ProtocolModule | undefined {
  return mostSure(PROTOCOLS.map((p) => [p, p.sniff(value)] as const));
}
