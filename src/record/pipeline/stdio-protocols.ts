import type { ChannelHint } from '../../protocols/protocol.js';

/** Protocols spoken over a child's stdio; `auto` sniffs the first lines. */
export const STDIO_PROTOCOLS = ['pi-rpc', 'acp'] as const;
export type StdioProtocol = (typeof STDIO_PROTOCOLS)[number];

/** The channel hint under which the catalog picks `protocol` for a stdio exchange. */
export function stdioHint(protocol: StdioProtocol): ChannelHint {
  // Both claim stdio equally; ACP's subprotocol name makes it certain, and pi-rpc wins the tie.
  return protocol === 'acp' ? { transport: 'stdio', subprotocol: 'agent-client-protocol.v1' } : { transport: 'stdio' };
}
